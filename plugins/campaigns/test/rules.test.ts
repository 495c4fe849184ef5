/** The campaigns plugin's pure rules. */
import { isPositiveReply } from '../src/contract';
import { burstSize, confirmationTextFor, editScope, fillCampaignText, gapAfter, normalizeNumber, parseConsentAt, parseLegalBasis, parseScheduledAt, parseWhatsappIds, variantFor, variantsOf, type CampaignMessages } from '../src/services/rules';

const messages = (m: Partial<CampaignMessages>): CampaignMessages => ({
  message1: '', message2: '', message3: '', message4: '', message5: '',
  confirmationMessage1: '', confirmationMessage2: '', confirmationMessage3: '', confirmationMessage4: '', confirmationMessage5: '',
  ...m,
});

describe('campaign rules', () => {
  test('positive replies: explicit words only, case, accents and punctuation around ignored', () => {
    for (const yes of ['1', 'sim', 'SIM', 'Sim!', ' sim. ', 's', 'yes', 'Y', 'sí', 'si', 'ok', 'OK!!', 'Confirmo', 'confirmado', 'quero', 'aceito', 'evet', '👍', '👍🏽', '*sim*', '"1"']) expect([yes, isPositiveReply(yes)]).toEqual([yes, true]);
    for (const no of ['', '2', '0', 'não', 'nao', 'no', 'sim, mas depois', 'simples', 'talvez', '11', '1 2', 'yes please', 'ok obrigado', '👎', 'sim'.repeat(20), null, undefined]) expect([no, isPositiveReply(no)]).toEqual([no, false]);
  });

  test('variables: {nome} {numero} {email} and custom keys; double braces left for the tickets plugin', () => {
    const r = { name: 'Ana Lima', number: '5511987654321', email: 'ana@example.com' };
    expect(fillCampaignText('Oi {nome}, {numero}, {email}', r, [])).toBe('Oi Ana Lima, 5511987654321, ana@example.com');
    expect(fillCampaignText('{loja}: {cupom} {cupom} {{name}} {desconhecida}', r, [{ key: 'loja', value: 'Centro' }, { key: 'cupom', value: 'X$1' }])).toBe('Centro: X$1 X$1 {{name}} {desconhecida}');
    expect(fillCampaignText('{a.b}', r, [{ key: 'a.b', value: 'ok' }])).toBe('ok');
  });

  test('variants in turn over the non-blank messages; confirmation texts fall back to the first', () => {
    const m = messages({ message1: 'um', message3: 'três', message5: '  ', confirmationMessage2: 'c2', confirmationMessage3: 'c3' });
    expect(variantsOf(m)).toEqual([1, 3]);
    expect([1, 2, 3, 4].map((seq) => variantFor(seq, [1, 3]))).toEqual([1, 3, 1, 3]);
    expect(confirmationTextFor(m, 3)).toBe('c3');
    expect(confirmationTextFor(m, 1)).toBe('c2');
    expect(confirmationTextFor(messages({}), 1)).toBe('');
    expect(() => variantFor(1, [])).toThrow();
  });

  test('pacing: 5 / 2 / 20 gives 0, 5, 25, 30, 50 s; bursts when messageInterval is 0', () => {
    const s = { messageInterval: 5, longerIntervalAfter: 2, greaterInterval: 20 };
    let block = 0;
    let t = 0;
    const at = [0];
    for (let i = 0; i < 4; i++) {
      const g = gapAfter(block + 1, s);
      block = g.sentInBlock;
      t += g.gapSeconds;
      at.push(t);
    }
    expect(at).toEqual([0, 5, 25, 30, 50]);
    expect(gapAfter(3, { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 60 })).toEqual({ gapSeconds: 0, sentInBlock: 3 });
    expect(gapAfter(5, { messageInterval: 0, longerIntervalAfter: 5, greaterInterval: 0 })).toEqual({ gapSeconds: 0, sentInBlock: 5 });
    expect(burstSize(0, s, 100)).toBe(1);
    expect(burstSize(3, { messageInterval: 0, longerIntervalAfter: 10, greaterInterval: 30 }, 100)).toBe(7);
    expect(burstSize(0, { messageInterval: 0, longerIntervalAfter: 0, greaterInterval: 30 }, 100)).toBe(100);
  });

  test('edit scope: INATIVA all; PROGRAMADA all only more than an hour ahead; CANCELADA messages; else none', () => {
    const now = new Date('2030-01-01T12:00:00Z');
    expect(editScope('INATIVA', null, now)).toBe('all');
    expect(editScope('PROGRAMADA', new Date('2030-01-01T13:00:01Z'), now)).toBe('all');
    expect(editScope('PROGRAMADA', new Date('2030-01-01T13:00:00Z'), now)).toBe('none');
    expect(editScope('CANCELADA', null, now)).toBe('messages');
    expect(editScope('EM_ANDAMENTO', null, now)).toBe('none');
    expect(editScope('FINALIZADA', null, now)).toBe('none');
  });

  test('scheduledAt: wall time of the company zone, or as given with an offset; ids; numbers', () => {
    expect(parseScheduledAt('2030-06-01 09:30:00', 'America/Sao_Paulo')!.toISOString()).toBe('2030-06-01T12:30:00.000Z');
    expect(parseScheduledAt('2030-06-01T09:30', 'Europe/Istanbul')!.toISOString()).toBe('2030-06-01T06:30:00.000Z');
    expect(parseScheduledAt('2030-06-01T09:30:00Z', 'America/Sao_Paulo')!.toISOString()).toBe('2030-06-01T09:30:00.000Z');
    expect(parseScheduledAt('2030-06-01T09:30:00-05:00', 'America/Sao_Paulo')!.toISOString()).toBe('2030-06-01T14:30:00.000Z');
    expect(parseScheduledAt('', 'America/Sao_Paulo')).toBeNull();
    expect(() => parseScheduledAt('01/06/2030', 'America/Sao_Paulo')).toThrow();
    expect(parseWhatsappIds('3, 5,3')).toEqual([3, 5]);
    expect(parseWhatsappIds(7)).toEqual([7]);
    expect(parseWhatsappIds([2, 1])).toEqual([2, 1]);
    expect(parseWhatsappIds('')).toEqual([]);
    expect(() => parseWhatsappIds('3,x')).toThrow();
    expect(normalizeNumber('+55 (11) 98765-4321')).toBe('5511987654321');
    expect(normalizeNumber('11 98765-4321')).toBe('5511987654321');
    expect(normalizeNumber('+1 415 555 2671')).toBe('14155552671');
    expect(normalizeNumber('123456789')).toBe('123456789');
    expect(normalizeNumber('55abc')).toBeNull();
  });

  test('issue 34: legal bases by code or word in the four languages; consent dates as ISO, DD/MM/YYYY or a sheet serial, never in the future', () => {
    expect(['consent', 'Consentimento', 'CONSENTIMIENTO', 'legal_obligation', 'Obrigação legal', 'interesse legítimo', 'Meşru menfaat', 'Proteção do crédito'].map(parseLegalBasis))
      .toEqual(['consent', 'consent', 'consent', 'legal-obligation', 'legal-obligation', 'legitimate-interest', 'legitimate-interest', 'credit-protection']);
    expect(parseLegalBasis('')).toBeNull();
    expect(parseLegalBasis(null)).toBeNull();
    expect(() => parseLegalBasis('porque sim')).toThrow(/legalBasis/);
    const now = new Date('2026-06-01T12:00:00Z');
    expect(parseConsentAt('2026-01-15', now)?.toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(parseConsentAt('15/01/2026', now)?.toISOString()).toBe('2026-01-15T00:00:00.000Z');
    expect(parseConsentAt('2026-01-15T10:00:00-03:00', now)?.toISOString()).toBe('2026-01-15T13:00:00.000Z');
    expect(parseConsentAt('46037', now)?.toISOString()).toBe('2026-01-15T00:00:00.000Z'); // an .xls date cell
    expect(parseConsentAt('  ', now)).toBeNull();
    for (const bad of ['2026-06-03', '31/02/2026', 'ontem', '0', '2026-1-5']) expect(() => parseConsentAt(bad, now)).toThrow(/consentAt/);
  });
});
