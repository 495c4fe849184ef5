import { Type, type Static } from '@atendo/sdk';

const Title = Type.String({ minLength: 1, maxLength: 200 });
const fields = {
  /** The video code (for example a YouTube id) the help page embeds. */
  video: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()])),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 5000 }), Type.Null()])),
  /** An optional http(s) link to further reading. */
  link: Type.Optional(Type.Union([Type.String({ maxLength: 500, pattern: '^$|^https?://\\S+$' }), Type.Null()])),
};

/** Body of `POST /helps`: `title` required (1..200, not blank), the rest optional. */
export const CreateHelpBody = Type.Object({ title: Title, ...fields });
/** Body of `PUT /helps/:id`: every field optional. */
export const UpdateHelpBody = Type.Object({ title: Type.Optional(Title), ...fields });
/** What a create or update body may carry. */
export type HelpBody = Partial<Static<typeof CreateHelpBody>>;
