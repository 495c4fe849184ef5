/**
 * Text-to-speech for prompts whose `voice` is not "texto": Microsoft's own Speech SDK
 * (`microsoft-cognitiveservices-speech-sdk`, SpeechSynthesizer over its WebSocket protocol), the voices of
 * the product family's prompt modal being Azure neural voices (pt-BR-FranciscaNeural, ...). The SDK is
 * large and loads on the first spoken answer only.
 */

/** The synthesized answer: MP3 (24 kHz, 48 kbit/s, mono) bytes. */
export type Mp3 = Buffer;

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** Characters of an answer spoken at most (longer answers are cut; the provider caps one request at 10 minutes of audio). */
export const MAX_SPOKEN_CHARS = 3000;

/** The SSML of `text` in `voice` (language pt-BR; the voice name decides the spoken language). */
export function ssmlFor(voice: string, text: string): string {
  return `<speak version="1.0" xml:lang="pt-BR"><voice name="${escapeXml(voice)}">${escapeXml(text.slice(0, MAX_SPOKEN_CHARS))}</voice></speak>`;
}

/**
 * Speaks `text` in `voice` with the subscription `key` at `endpoint` (a ws:// or wss:// URL: the region's
 * `wss://{region}.tts.speech.microsoft.com/cognitiveservices/websocket/v1`, or a local stand-in), in at
 * most `timeoutMs`. Resolves the MP3 bytes; rejects with the provider's reason (refused key, unknown voice,
 * unreachable, timeout), the caller then sending the text instead.
 */
export async function synthesize(endpoint: string, key: string, voice: string, text: string, timeoutMs: number): Promise<Mp3> {
  const sdk = await import('microsoft-cognitiveservices-speech-sdk');
  const config = sdk.SpeechConfig.fromEndpoint(new URL(endpoint), key);
  config.speechSynthesisOutputFormat = sdk.SpeechSynthesisOutputFormat.Audio24Khz48KBitRateMonoMp3;
  // No audio output device: the result carries the audio.
  const synthesizer = new sdk.SpeechSynthesizer(config, null);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<Mp3>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`text-to-speech took more than ${timeoutMs} ms`)), timeoutMs);
      synthesizer.speakSsmlAsync(
        ssmlFor(voice, text),
        (result) => {
          if (result.reason === sdk.ResultReason.SynthesizingAudioCompleted && result.audioData.byteLength > 0) resolve(Buffer.from(result.audioData));
          else reject(new Error(`text-to-speech failed: ${result.errorDetails || sdk.ResultReason[result.reason]}`));
        },
        (error) => reject(new Error(`text-to-speech failed: ${error}`)),
      );
    });
  } finally {
    clearTimeout(timer);
    synthesizer.close();
  }
}
