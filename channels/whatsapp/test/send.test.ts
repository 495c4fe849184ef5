import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildContent } from '../src/send';

/** buildContent: what Baileys gets for voice notes and reactions (issue 20, items 3 and 6). */
describe('whatsapp buildContent', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atendo-wa-send-'));
  mkdirSync(join(dir, 'company7', 'messages'), { recursive: true });
  writeFileSync(join(dir, 'company7', 'messages', 'voice.ogg'), Buffer.from('OggS fake'));
  writeFileSync(join(dir, 'company7', 'messages', 'song.mp3'), Buffer.from('ID3 fake'));
  const base = { companyId: 7, messageId: 1, ticketId: 1, connectionId: 1, channel: 'whatsapp' as const, to: '5511987654321' };

  test('an OGG/Opus voice note goes as push-to-talk with the opus codec in its type; other audio does not', async () => {
    const voice = (await buildContent({ ...base, media: { path: 'messages/voice.ogg', mimeType: 'audio/ogg', fileName: 'voice.ogg' } }, dir)) as Record<string, unknown>;
    expect(voice).toMatchObject({ ptt: true, mimetype: 'audio/ogg; codecs=opus', audio: { url: join(dir, 'company7', 'messages', 'voice.ogg') } });
    const song = (await buildContent({ ...base, media: { path: 'messages/song.mp3', mimeType: 'audio/mpeg', fileName: 'song.mp3' } }, dir)) as Record<string, unknown>;
    expect(song).toMatchObject({ ptt: false, mimetype: 'audio/mpeg' });
  });

  test('a reaction goes as `react` with the key of the message in the chat; an empty emoji removes it', async () => {
    expect(await buildContent({ ...base, messageId: 0, ticketId: 0, reaction: { wid: 'ABC123', emoji: '👍', fromMe: false } }, dir)).toEqual({ react: { text: '👍', key: { remoteJid: '5511987654321@s.whatsapp.net', id: 'ABC123', fromMe: false } } });
    expect(await buildContent({ ...base, messageId: 0, ticketId: 0, reaction: { wid: 'XYZ', emoji: '', fromMe: true } }, dir)).toEqual({ react: { text: '', key: { remoteJid: '5511987654321@s.whatsapp.net', id: 'XYZ', fromMe: true } } });
    await expect(buildContent({ ...base, reaction: { wid: '', emoji: '👍' } }, dir)).rejects.toThrow('reaction without a message id');
  });
});
