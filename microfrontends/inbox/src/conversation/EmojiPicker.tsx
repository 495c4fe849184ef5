import { useEffect, useRef } from 'react';
import { Picker } from 'emoji-mart';
import data from '@emoji-mart/data/sets/15/native.json';
import en from '@emoji-mart/data/i18n/en.json';
import es from '@emoji-mart/data/i18n/es.json';
import pt from '@emoji-mart/data/i18n/pt.json';
import tr from '@emoji-mart/data/i18n/tr.json';

/** emoji-mart's texts for the interface languages (pt-BR uses Portuguese). */
const TEXTS: Record<string, unknown> = { 'pt-BR': pt, pt, en, es, tr };

/**
 * The emoji picker of the message input (issue 20 item 6): emoji-mart (native emoji, Emoji 15), its own
 * chunk loaded when the emoji button is first pressed. `onPick` gets the chosen emoji as text.
 */
export default function EmojiPicker({ onPick, language, dark }: { onPick: (emoji: string) => void; language: string; dark: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  useEffect(() => {
    const el = host.current;
    if (!el) return undefined;
    const picker = new Picker({
      data,
      i18n: TEXTS[language] ?? TEXTS[language.split('-')[0]] ?? pt,
      set: 'native',
      theme: dark ? 'dark' : 'light',
      previewPosition: 'none',
      skinTonePosition: 'search',
      maxFrequentRows: 2,
      perLine: 8,
      autoFocus: true,
      onEmojiSelect: (e: { native?: string }) => {
        if (e?.native) pick.current(e.native);
      },
    }) as unknown as HTMLElement;
    el.appendChild(picker);
    return () => {
      picker.remove();
    };
  }, [language, dark]);
  return <div ref={host} data-testid="emoji-picker" />;
}
