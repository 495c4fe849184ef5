// Node globals that jsdom does not expose but the shell's libraries use (react-router needs TextEncoder).
// Import this first in every jsdom test file.
import { TextDecoder, TextEncoder } from 'node:util';

Object.assign(globalThis, { TextEncoder, TextDecoder });
