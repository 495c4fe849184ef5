import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildContent, recipientJid } from '../src/send';

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

/** recipientJid: where a send goes (issue 33 item 5: contacts known only by their LID). */
describe('whatsapp recipientJid', () => {
  const base = { companyId: 7, messageId: 1, ticketId: 1, connectionId: 1, channel: 'whatsapp' as const };

  test('the stored phone JID first; a LID-only contact (its number is the LID digits) goes to its LID, not to a made-up phone JID', () => {
    // A contact that wrote from a 12-digit id: the stored JID wins over its 13-digit number.
    expect(recipientJid({ ...base, to: '5511987654321', remoteJid: '551187654321@s.whatsapp.net', lid: '104857600000123@lid' })).toBe('551187654321@s.whatsapp.net');
    // Known only by its LID: never `104857600000123@s.whatsapp.net`.
    expect(recipientJid({ ...base, to: '104857600000123', remoteJid: null, lid: '104857600000123@lid' })).toBe('104857600000123@lid');
    // A phone number with a LID on file and no stored JID: the number.
    expect(recipientJid({ ...base, to: '5511987654321', remoteJid: null, lid: '104857600000123@lid' })).toBe('5511987654321@s.whatsapp.net');
    // Only a LID: the LID.
    expect(recipientJid({ ...base, to: '', remoteJid: null, lid: '104857600000123@lid' })).toBe('104857600000123@lid');
  });
});
