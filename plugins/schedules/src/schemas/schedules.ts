import { IntLike, Paginated, Type, type Static } from '@atendo/sdk';
import { BODY_MAX, BODY_MIN, ScheduleSchema } from '../contract';

/** Query of `GET /schedules`: `searchParam` (body or contact name), `contactId`, `userId`, 1-based `pageNumber`. */
export const ListSchedulesQuery = Type.Object({
  searchParam: Type.Optional(Type.String({ maxLength: 200 })),
  contactId: Type.Optional(Type.Union([IntLike({ minimum: 1 }), Type.Literal('')])),
  userId: Type.Optional(Type.Union([IntLike({ minimum: 1 }), Type.Literal('')])),
  pageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 1 })),
});
export type ListSchedulesQuery = Static<typeof ListSchedulesQuery>;

/**
 * `sendAt`: the client's `YYYY-MM-DDTHH:mm` (seconds optional; a space for the T accepted), read in the
 * company's time zone, or a full ISO 8601 time with an offset (`Z`, `-03:00`), taken as it is.
 */
export const SendAt = Type.String({ minLength: 16, maxLength: 40 });

/**
 * Body of `POST /schedules`: `body` 5..4096 ("Mensagem muito curta"), `contactId` (a contact of the company),
 * `sendAt` (required, in the future). `userId` and `sentAt` of old clients are ignored (the caller is the
 * author; `sentAt` is filled when sent).
 */
export const CreateScheduleBody = Type.Object(
  {
    body: Type.String({ minLength: BODY_MIN, maxLength: BODY_MAX }),
    contactId: IntLike({ minimum: 1 }),
    sendAt: SendAt,
    userId: Type.Optional(Type.Unknown()),
    sentAt: Type.Optional(Type.Unknown()),
    companyId: Type.Optional(Type.Unknown()),
    ticketId: Type.Optional(Type.Unknown()),
    status: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type CreateScheduleBody = Static<typeof CreateScheduleBody>;

/** Body of `PUT /schedules/:id`: the same fields, each optional. */
export const UpdateScheduleBody = Type.Partial(CreateScheduleBody, { additionalProperties: false });
export type UpdateScheduleBody = Static<typeof UpdateScheduleBody>;

/** Answer of `GET /schedules`. */
export const SchedulePage = Paginated('schedules', ScheduleSchema);
