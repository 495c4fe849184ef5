/**
 * The new-message notification sound, synthesised with the Web Audio API (no audio file to ship): two
 * short sine tones (880 Hz then 1320 Hz, 0.12 s each) at the top bar's volume (0..1). Browsers keep an
 * AudioContext suspended until the page had a user gesture; until then the sound is silently skipped.
 */
let ctx: AudioContext | null = null;

type AudioContextCtor = new () => AudioContext;

function audioContext(): AudioContext | null {
  if (ctx) return ctx;
  const g = globalThis as { AudioContext?: AudioContextCtor; webkitAudioContext?: AudioContextCtor };
  const Ctor = g.AudioContext ?? g.webkitAudioContext;
  if (!Ctor) return null;
  try {
    ctx = new Ctor();
  } catch {
    ctx = null;
  }
  return ctx;
}

/** Plays the notification at `volume` (0..1; 0 plays nothing). Never throws. Returns whether it played. */
export function playNotificationSound(volume: number): boolean {
  if (!(volume > 0)) return false;
  const ac = audioContext();
  if (!ac) return false;
  try {
    if (ac.state === 'suspended') void ac.resume().catch(() => undefined);
    const start = ac.currentTime + 0.01;
    const peak = Math.min(1, volume) * 0.25;
    [880, 1320].forEach((freq, i) => {
      const osc = ac.createOscillator();
      const gain = ac.createGain();
      const t0 = start + i * 0.14;
      osc.type = 'sine';
      osc.frequency.setValueAtTime(freq, t0);
      gain.gain.setValueAtTime(0.0001, t0);
      gain.gain.exponentialRampToValueAtTime(peak, t0 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + 0.12);
      osc.connect(gain).connect(ac.destination);
      osc.start(t0);
      osc.stop(t0 + 0.13);
    });
    return true;
  } catch {
    return false;
  }
}
