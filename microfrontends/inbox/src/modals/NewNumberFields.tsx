import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';
import { TextField } from '@atendo/web-ui';

/** Country of numbers typed without a country code (the contacts plugin's default, CONTACTS_DEFAULT_COUNTRY). */
export const DEFAULT_COUNTRY: CountryCode = 'BR';

/** A typed phone number normalised: digits with the country code (`5511987654321`) and the international form. */
export interface NormalisedNumber {
  digits: string;
  international: string;
}

/**
 * Normalises a phone number as typed (with or without `+`, spaces, dashes, parentheses; without a country
 * code it is taken as `country`'s) with libphonenumber-js; undefined when it is not a possible number.
 */
export function normaliseNumber(raw: string, country: CountryCode = DEFAULT_COUNTRY): NormalisedNumber | undefined {
  const text = raw.trim();
  if (!/\d{6,}/.test(text.replace(/\D/g, ''))) return undefined;
  const parsed = parsePhoneNumberFromString(text, { defaultCountry: country }) ?? parsePhoneNumberFromString(`+${text.replace(/\D/g, '')}`);
  if (!parsed || !parsed.isPossible()) return undefined;
  return { digits: parsed.number.replace(/\D/g, ''), international: parsed.formatInternational() };
}

/** What the new-number fields report: the normalised number (undefined while invalid) and the name. */
export interface NewNumberValue {
  number: NormalisedNumber | undefined;
  typed: string;
  name: string;
}

/**
 * The "new number" step of the new-ticket dialog (issue 20 item 5), its own chunk (it brings the phone
 * library): the number, normalised as typed (shown in international form, 'Número inválido' when it cannot
 * be a number), and an optional name (the number is used when empty).
 */
export default function NewNumberFields({ onChange, showErrors }: { onChange: (v: NewNumberValue) => void; showErrors: boolean }) {
  const { t } = useTranslation('inbox');
  const [typed, setTyped] = useState('');
  const [name, setName] = useState('');
  const number = normaliseNumber(typed);
  useEffect(() => {
    onChange({ number, typed, name });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [typed, name, number?.digits]);
  return (
    <>
      <TextField
        label={t('newContact.number')}
        value={typed}
        inputMode="tel"
        autoComplete="off"
        maxLength={30}
        onChange={(e) => setTyped(e.target.value)}
        error={(showErrors || typed.length > 5) && !number ? t('newContact.invalidNumber') : undefined}
        helperText={number ? number.international : t('newContact.numberHint')}
        data-testid="new-number"
      />
      <TextField label={t('newContact.name')} value={name} maxLength={50} onChange={(e) => setName(e.target.value)} data-testid="new-number-name" />
    </>
  );
}
