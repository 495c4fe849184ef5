import { Type, type Static } from '@atendo/sdk';
import { HHMM_PATTERN, PlantaoSchema, WEEKDAYS } from '../contract';

/**
 * A day as clients send it: `weekdayEn` in any letter case (the product family's ModalPlantao sends
 * `"Monday"`, answers carry `"monday"`); the store keeps the canonical names.
 */
export const PlantaoDayBody = Type.Object(
  {
    weekday: Type.String({ maxLength: 30 }),
    weekdayEn: Type.String({ pattern: `^(?:${WEEKDAYS.map((d) => `[${d.weekdayEn[0]}${d.weekdayEn[0].toUpperCase()}]${d.weekdayEn.slice(1)}`).join('|')})$` }),
    startTime: Type.Union([Type.String({ pattern: HHMM_PATTERN }), Type.Null()]),
    endTime: Type.Union([Type.String({ pattern: HHMM_PATTERN }), Type.Null()]),
  },
  { additionalProperties: false },
);

/**
 * Body of `POST /plantao` and `PUT /plantao/:id`: the on-duty user (a user of the company), the phone to
 * notify (digits, 8 to 20 after cleaning), the interval in minutes (1..1440, default 1) and the seven days.
 * The cross-field rules (a day with one time needs the other; one day at least with both) are checked by
 * the store with the spec's messages.
 */
export const PlantaoBody = Type.Object(
  {
    userId: Type.Integer({ minimum: 1 }),
    phone: Type.String({ maxLength: 50 }),
    interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440 })),
    days: Type.Array(PlantaoDayBody, { minItems: 7, maxItems: 7 }),
  },
  { additionalProperties: false },
);
export type PlantaoBody = Static<typeof PlantaoBody>;

export const PlantaoList = Type.Array(PlantaoSchema);
