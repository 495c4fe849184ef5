import type { HttpAnswer, IntegrationTools, IntegrationType } from '../contract';
import { PermanentError } from '../services/engine';

interface Bubble {
  type?: string;
  content?: { markdown?: string; richText?: unknown; url?: string; plainText?: string };
}
interface ChatAnswer {
  sessionId?: string;
  messages?: Bubble[];
  input?: { type?: string; items?: { id?: string; content?: string }[] };
}

/** The plain text of a Typebot rich-text tree (slate nodes: `{text}` leaves, `children`, blocks per line). */
export function richTextToPlain(nodes: unknown): string {
  const walk = (n: unknown): string => {
    if (!n || typeof n !== 'object') return '';
    const node = n as { text?: unknown; children?: unknown[]; type?: string };
    if (typeof node.text === 'string') return node.text;
    return Array.isArray(node.children) ? node.children.map(walk).join('') : '';
  };
  return Array.isArray(nodes) ? nodes.map(walk).join('\n') : '';
}

function bubbleText(b: Bubble): string {
  if (typeof b.content?.markdown === 'string') return b.content.markdown;
  if (typeof b.content?.plainText === 'string') return b.content.plainText;
  return richTextToPlain(b.content?.richText);
}

const norm = (s: string) => s.trim().toLowerCase();

function answerOf(res: HttpAnswer, what: string): ChatAnswer {
  if (res.status >= 500 || res.status === 408 || res.status === 429) throw new Error(`Typebot ${what} answered ${res.status}`);
  if (!res.ok || !res.json || typeof res.json !== 'object') throw new PermanentError(`Typebot ${what} answered ${res.status}`);
  return res.json as ChatAnswer;
}

/**
 * typebot: one Typebot session per ticket through the public chat API at `urlN8N`
 * (`POST /api/v1/typebots/{typebotSlug}/startChat`, then `POST /api/v1/sessions/{id}/continueChat`).
 * The session restarts after `typebotExpires` minutes of silence (0: never); `typebotKeywordFinish` hands
 * the ticket to humans, `typebotKeywordRestart` drops the session and sends `typebotRestartMessage`.
 * Bubbles go out in order, `typebotDelayMessage` ms apart: text (markdown), image, audio, video (as
 * files), and a choice input as a numbered list (an answer's number picks that choice). A reply Typebot
 * does not take (no new bubble) gets `typebotUnknownMessage`. A flow that ends (no input) hands over.
 */
export const typebotType: IntegrationType = {
  type: 'typebot',
  async handle(turn, tools) {
    const i = turn.integration;
    const base = i.urlN8N.replace(/\/+$/, '');
    const text = turn.message.body.trim();
    if (i.typebotKeywordFinish && norm(text) === norm(i.typebotKeywordFinish)) {
      await tools.handOff({}, 'finish keyword');
      return;
    }
    const session = await tools.session.get();
    if (i.typebotKeywordRestart && norm(text) === norm(i.typebotKeywordRestart)) {
      await tools.session.set(null, null);
      if (i.typebotRestartMessage) await tools.say(i.typebotRestartMessage);
      return;
    }
    const now = Date.now();
    const expires = () => (i.typebotExpires > 0 ? new Date(Date.now() + i.typebotExpires * 60_000) : null);
    const live = session?.externalId && (!session.expiresAt || session.expiresAt.getTime() > now);
    let answer: ChatAnswer;
    let sessionId: string;
    if (live) {
      sessionId = session!.externalId!;
      // A number answers the n-th choice of the last choice input.
      const choices = Array.isArray(session!.state.choices) ? (session!.state.choices as string[]) : [];
      const n = /^\d{1,2}$/.test(text) ? Number(text) : 0;
      const reply = n >= 1 && n <= choices.length ? choices[n - 1] : text;
      const res = await tools.http(`${base}/api/v1/sessions/${encodeURIComponent(sessionId)}/continueChat`, { method: 'POST', json: { message: { type: 'text', text: reply }, textBubbleContentFormat: 'markdown' } });
      if (res.status === 404) {
        // The session is gone on Typebot's side: start over.
        answer = answerOf(await start(), 'startChat');
        sessionId = answer.sessionId ?? '';
      } else answer = answerOf(res, 'continueChat');
    } else {
      answer = answerOf(await start(), 'startChat');
      sessionId = answer.sessionId ?? '';
      if (!sessionId) throw new PermanentError('Typebot startChat gave no session');
    }
    const bubbles = Array.isArray(answer.messages) ? answer.messages : [];
    const choices = answer.input?.type === 'choice input' && Array.isArray(answer.input.items) ? answer.input.items.map((it) => String(it.content ?? '')).filter(Boolean) : [];
    await tools.session.set(sessionId, expires(), { choices });
    if (live && !bubbles.length && answer.input) {
      if (i.typebotUnknownMessage) await tools.say(i.typebotUnknownMessage);
      return;
    }
    let first = true;
    const gap = async () => {
      if (!first) await tools.pause(i.typebotDelayMessage);
      first = false;
    };
    for (const b of bubbles) {
      await gap();
      if (b.type === 'text') await tools.say(bubbleText(b));
      else if ((b.type === 'image' || b.type === 'video' || b.type === 'audio') && b.content?.url) await tools.sayMedia(b.content.url);
      else if (b.type === 'embed' && b.content?.url) await tools.say(b.content.url);
    }
    if (choices.length) {
      await gap();
      await tools.say(choices.map((c, k) => `${k + 1} - ${c}`).join('\n'));
    }
    if (!answer.input) await tools.handOff({}, 'the Typebot flow finished');

    function start(): Promise<HttpAnswer> {
      return tools.http(`${base}/api/v1/typebots/${encodeURIComponent(i.typebotSlug)}/startChat`, {
        method: 'POST',
        json: {
          message: text ? { type: 'text', text } : undefined,
          isStreamEnabled: false,
          textBubbleContentFormat: 'markdown',
          prefilledVariables: { number: turn.contact.number, pushName: turn.contact.name, ticketId: turn.ticket.id },
        },
      });
    }
  },
};
