import { ListQuery, Type, type Static } from '@atendo/sdk';
import { QueueIntegrationSchema } from '../contract';

/** Query of `GET /queueIntegration`: `searchParam` (name contains, case-insensitive) and 1-based `pageNumber`. */
export const ListIntegrationsQuery = ListQuery;
export type ListIntegrationsQuery = Static<typeof ListIntegrationsQuery>;

const Str = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));
const Int = (min: number, max: number) => Type.Optional(Type.Union([Type.Integer({ minimum: min, maximum: max }), Type.String({ pattern: '^\\s*\\d{1,9}\\s*$' }), Type.Null()]));

/**
 * Body of `POST /queueIntegration` and `PUT /queueIntegration/:id` (the modal's form values). Required by
 * type (checked by the service, 400 ERR_VALIDATION): `name` always; `urlN8N` for n8n, webhook and typebot;
 * `typebotSlug` for typebot; `language` (pt-BR, en, es) and, on create, `jsonContent` for dialogflow.
 * `secret` (write-only, 16..200 characters) sets the webhook signing secret (a new one is generated on
 * create when absent); an empty `jsonContent` on update keeps the stored one.
 */
export const IntegrationBody = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 40 }),
    name: Str(100),
    projectName: Str(200),
    jsonContent: Str(20_000),
    language: Str(10),
    urlN8N: Str(2000),
    typebotSlug: Str(200),
    typebotExpires: Int(0, 100_000),
    typebotDelayMessage: Int(0, 60_000),
    typebotKeywordFinish: Str(200),
    typebotKeywordRestart: Str(200),
    typebotUnknownMessage: Str(4096),
    typebotRestartMessage: Str(4096),
    secret: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  },
  { additionalProperties: true },
);
export type IntegrationBody = Static<typeof IntegrationBody>;

/** Body of `POST /queueIntegration/testSession`: Dialogflow's credentials to try, or an integration id to test. */
export const TestSessionBody = Type.Object(
  {
    id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
    type: Type.Optional(Type.String({ maxLength: 40 })),
    projectName: Str(200),
    jsonContent: Str(20_000),
    language: Str(10),
    urlN8N: Str(2000),
  },
  { additionalProperties: true },
);
export type TestSessionBody = Static<typeof TestSessionBody>;

/** Answer of `GET /queueIntegration`. */
export const IntegrationPage = Type.Object({ queueIntegrations: Type.Array(QueueIntegrationSchema), count: Type.Integer(), hasMore: Type.Boolean() });
