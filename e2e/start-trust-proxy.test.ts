/**
 * `npm start` (scripts/start.mjs, issue 37 item 6): the API believes X-Forwarded-For from a loopback peer
 * only where the bundled web server is in front of it (the browser reaches the API through its /backend,
 * API_URL unset), in development and production alike; with API_URL set (the browser calls the API
 * directly) nothing is trusted unless TRUST_PROXY says so.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const START = pathToFileURL(resolve(__dirname, '../scripts/start.mjs')).href;

/** The API environment start.mjs computes for `env` (run in a child: start.mjs is an ES module). */
function apiEnv(env: Record<string, string>, production: boolean): Record<string, string | undefined> {
  const code = `import { apiEnvironment } from ${JSON.stringify(START)};
process.stdout.write(JSON.stringify(apiEnvironment(${JSON.stringify(env)}, { production: ${production}, port: '8080', webPort: '3000' })));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }));
}

test.each([false, true])('production=%s: loopback trusted with the web server in front; not with API_URL; TRUST_PROXY wins', (production) => {
  expect(apiEnv({}, production).TRUST_PROXY).toBe('loopback');
  expect(apiEnv({ API_URL: 'https://api.example.com' }, production).TRUST_PROXY).toBeUndefined();
  expect(apiEnv({ API_URL: 'https://api.example.com', TRUST_PROXY: '10.0.0.0/8' }, production).TRUST_PROXY).toBe('10.0.0.0/8');
  expect(apiEnv({ TRUST_PROXY: 'false' }, production).TRUST_PROXY).toBe('false');
  expect(apiEnv({}, production).SEED_DEMO).toBe(production ? 'false' : 'true');
});
