import { ListQuery, Type, type Static } from '@atendo/sdk';
import { MyFeatureEntrySchema } from '../contract';

/** Query of `GET /my-feature`: `searchParam` (title contains, case-insensitive) and 1-based `pageNumber`. */
export const ListEntriesQuery = ListQuery;
export type ListEntriesQuery = Static<typeof ListEntriesQuery>;

/** Body of `POST /my-feature`: a title of 1 to 200 characters, not blank once trimmed. */
export const CreateEntryBody = Type.Object({ title: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
export type CreateEntryBody = Static<typeof CreateEntryBody>;

/** Answer of `GET /my-feature`. */
export const EntryPage = Type.Object({ records: Type.Array(MyFeatureEntrySchema), count: Type.Integer(), hasMore: Type.Boolean() });
