import { useCallback, useEffect, useRef, useState } from 'react';

/** Recorder states (spec 2-tickets.md §4 "Voice recording": idle, recording, then send or cancel). */
export type RecorderStatus = 'idle' | 'starting' | 'recording';

/** Container types tried in order; the first the browser records wins. */
const MIME_CANDIDATES = ['audio/ogg;codecs=opus', 'audio/webm;codecs=opus', 'audio/webm', 'audio/mp4'];

function pickMime(): string | undefined {
  const MR = (globalThis as { MediaRecorder?: typeof MediaRecorder }).MediaRecorder;
  if (!MR || typeof MR.isTypeSupported !== 'function') return undefined;
  return MIME_CANDIDATES.find((m) => {
    try {
      return MR.isTypeSupported(m);
    } catch {
      return false;
    }
  });
}

/** The file extension of a recorded audio type. */
export function audioExtension(mime: string): string {
  if (mime.includes('ogg')) return 'ogg';
  if (mime.includes('mp4') || mime.includes('aac')) return 'm4a';
  if (mime.includes('mpeg')) return 'mp3';
  return 'webm';
}

/**
 * Voice recording with MediaRecorder: `start()` asks for the microphone (rejects with the browser's error,
 * e.g. no microphone) and starts; `seconds` counts up while recording; `stop()` resolves the recorded audio
 * as a Blob; `cancel()` discards it. The microphone is released in every case, and on unmount.
 */
export function useRecorder() {
  const [status, setStatus] = useState<RecorderStatus>('idle');
  const [seconds, setSeconds] = useState(0);
  const recorder = useRef<MediaRecorder | null>(null);
  const stream = useRef<MediaStream | null>(null);
  const chunks = useRef<Blob[]>([]);
  const timer = useRef<ReturnType<typeof setInterval> | null>(null);

  const release = useCallback(() => {
    if (timer.current) clearInterval(timer.current);
    timer.current = null;
    stream.current?.getTracks().forEach((track) => track.stop());
    stream.current = null;
    recorder.current = null;
    chunks.current = [];
  }, []);

  useEffect(
    () => () => {
      try {
        if (recorder.current && recorder.current.state !== 'inactive') recorder.current.stop();
      } catch {
        /* already stopped */
      }
      release();
    },
    [release],
  );

  const start = useCallback(async () => {
    if (recorder.current) return;
    setStatus('starting');
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw new Error('Microphone not available');
      const media = await navigator.mediaDevices.getUserMedia({ audio: true });
      stream.current = media;
      const mimeType = pickMime();
      const rec = mimeType ? new MediaRecorder(media, { mimeType, audioBitsPerSecond: 128000 }) : new MediaRecorder(media);
      chunks.current = [];
      rec.ondataavailable = (e: BlobEvent) => {
        if (e.data && e.data.size > 0) chunks.current.push(e.data);
      };
      recorder.current = rec;
      rec.start();
      setSeconds(0);
      timer.current = setInterval(() => setSeconds((s) => s + 1), 1000);
      setStatus('recording');
    } catch (err) {
      release();
      setStatus('idle');
      throw err;
    }
  }, [release]);

  const stop = useCallback(
    () =>
      new Promise<Blob | null>((resolve) => {
        const rec = recorder.current;
        if (!rec) {
          setStatus('idle');
          resolve(null);
          return;
        }
        const type = rec.mimeType || 'audio/webm';
        rec.onstop = () => {
          const blob = new Blob(chunks.current, { type: type.split(';')[0] });
          release();
          setStatus('idle');
          resolve(blob);
        };
        try {
          if (rec.state === 'inactive') rec.onstop?.(new Event('stop'));
          else rec.stop();
        } catch {
          release();
          setStatus('idle');
          resolve(null);
        }
      }),
    [release],
  );

  const cancel = useCallback(() => {
    const rec = recorder.current;
    if (rec) {
      rec.onstop = null;
      rec.ondataavailable = null;
      try {
        if (rec.state !== 'inactive') rec.stop();
      } catch {
        /* already stopped */
      }
    }
    release();
    setStatus('idle');
    setSeconds(0);
  }, [release]);

  return { status, seconds, start, stop, cancel };
}
