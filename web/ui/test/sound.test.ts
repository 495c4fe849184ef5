import { playNotificationSound } from '../src/sound';

/** A fake Web Audio API recording the tones' frequencies and peak gains. */
class FakeParam {
  values: number[] = [];
  setValueAtTime(v: number) {
    this.values.push(v);
  }
  exponentialRampToValueAtTime(v: number) {
    this.values.push(v);
  }
}
const tones: { freq: number[]; gain: number[] }[] = [];
class FakeAudioContext {
  state = 'running';
  currentTime = 0;
  destination = {};
  createOscillator() {
    const frequency = new FakeParam();
    const tone = { freq: frequency.values, gain: [] as number[] };
    tones.push(tone);
    return { type: '', frequency, connect: (g: { gain: FakeParam }) => ((tone.gain = g.gain.values), g), start: jest.fn(), stop: jest.fn() };
  }
  createGain() {
    return { gain: new FakeParam(), connect: (d: unknown) => d };
  }
  resume() {
    return Promise.resolve();
  }
}

describe('playNotificationSound (Web Audio, no asset)', () => {
  afterEach(() => {
    delete (globalThis as { AudioContext?: unknown }).AudioContext;
    tones.length = 0;
  });

  test('volume 0 plays nothing', () => {
    (globalThis as { AudioContext?: unknown }).AudioContext = FakeAudioContext;
    expect(playNotificationSound(0)).toBe(false);
    expect(tones).toEqual([]);
  });

  test('two tones, peak gain proportional to the volume', () => {
    (globalThis as { AudioContext?: unknown }).AudioContext = FakeAudioContext;
    expect(playNotificationSound(0.4)).toBe(true);
    expect(tones.map((t) => t.freq)).toEqual([[880], [1320]]);
    expect(tones.map((t) => Math.max(...t.gain))).toEqual([0.1, 0.1]);
  });
});
