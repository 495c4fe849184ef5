/**
 * The deployment files agree with each other and with the code (issue 19, items 2 and 6): docker and k6
 * are not on every machine, so their inputs are checked here. deploy/compose.yaml runs PostgreSQL,
 * RabbitMQ, two API nodes of the image built from deploy/Dockerfile, the web server of the same image,
 * Caddy in front (the API under /backend, sticky for socket.io's polling fallback, /ready as health check)
 * and k6 under the `load` profile with the scenarios of deploy/k6; the Dockerfile is multi-stage, runs the
 * compiled build as a non-root user with a HEALTHCHECK, and installs production dependencies only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { API_PREFIX } from '../shell/serve';

const DEPLOY = join(__dirname, '..', 'deploy');
const read = (f: string) => readFileSync(join(DEPLOY, f), 'utf8');
type Service = { image?: string; build?: { dockerfile?: string }; command?: string[]; profiles?: string[]; healthcheck?: { test?: string[] }; environment?: Record<string, unknown>; depends_on?: Record<string, { condition?: string }>; volumes?: string[] };
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };

describe('deploy/compose.yaml', () => {
  const s = compose.services;

  test('the topology: postgres, rabbitmq, two API nodes, web, proxy, k6 (load profile)', () => {
    expect(Object.keys(s).sort()).toEqual(['api-1', 'api-2', 'k6', 'postgres', 'proxy', 'rabbitmq', 'web']);
    expect(s.k6.profiles).toEqual(['load']);
    for (const name of ['postgres', 'rabbitmq', 'api-1', 'api-2', 'web', 'proxy']) expect(s[name].profiles).toBeUndefined();
  });

  test('both API nodes run the image of deploy/Dockerfile with the same database, bus and secrets', () => {
    for (const name of ['api-1', 'api-2']) {
      expect(s[name].build?.dockerfile).toBe('deploy/Dockerfile');
      expect(s[name].image).toBe('atendo:latest');
      const env = s[name].environment!;
      for (const key of ['DATABASE_URL', 'AMQP_URL', 'JWT_SECRET', 'JWT_REFRESH_SECRET', 'FRONTEND_URL']) expect(env[key]).toBeTruthy();
      expect(s[name].healthcheck?.test?.join(' ')).toContain('/ready');
      expect(s[name].volumes).toContain('app-data:/data');
    }
    expect(s['api-1'].environment).toEqual(s['api-2'].environment);
    // Migrations run on one node first.
    expect(s['api-2'].depends_on?.['api-1']?.condition).toBe('service_healthy');
    expect(String(s['api-1'].environment!.BACKEND_URL)).toContain(API_PREFIX);
  });

  test('the web server is the compiled one of the same image', () => {
    expect(s.web.image).toBe('atendo:latest');
    expect(s.web.command).toEqual(['node', 'shell/dist-server/serve.js']);
    expect(s.web.environment!.API_PROXY_TARGET).toBe('http://api-1:8080');
  });

  test('k6 mounts the scenarios', () => {
    expect(s.k6.image).toMatch(/^grafana\/k6:/);
    expect(s.k6.volumes).toContain('./k6:/scripts:ro');
    expect(String(s.k6.environment!.BASE_URL)).toBe(`http://proxy${API_PREFIX}`);
  });
});

describe('deploy/Caddyfile', () => {
  const caddy = read('Caddyfile');
  test('routes the API prefix to both nodes, sticky, health-checked, and the rest to the web server', () => {
    expect(caddy).toContain(`handle_path ${API_PREFIX}/* {`);
    expect(caddy).toMatch(/reverse_proxy \{\$API_UPSTREAMS:api-1:8080 api-2:8080\} \{/);
    expect(caddy).toMatch(/lb_policy cookie/);
    expect(caddy).toMatch(/health_uri \/ready/);
    expect(caddy).toMatch(/reverse_proxy \{\$WEB_UPSTREAM:web:3000\}/);
    // What it publishes and refuses, run with Debian's caddy: e2e/caddy.test.ts.
    expect(caddy).toMatch(/respond @internal 404/);
  });
});

describe('deploy/Dockerfile', () => {
  const docker = read('Dockerfile');
  test('multi-stage: build with dev dependencies, production dependencies only in the runtime', () => {
    expect([...docker.matchAll(/^FROM \S+ AS (\w+)/gm)].map((m) => m[1])).toEqual(['manifests', 'build', 'deps', 'runtime']);
    expect(docker).toMatch(/RUN npm run build/);
    expect(docker).toMatch(/npm ci --omit=dev/);
    expect(docker).not.toMatch(/npm install/);
    expect(docker).not.toMatch(/tsx/);
  });
  test('runs the compiled kernel as the non-root node user, with a HEALTHCHECK', () => {
    const runtime = docker.slice(docker.indexOf('AS runtime'));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^HEALTHCHECK /m);
    expect(runtime).toMatch(/^CMD \["node", "kernel\/core\/dist\/src\/main\.js"\]$/m);
  });
});

describe('deploy/k6', () => {
  test('one scenario per kind of work, each with thresholds, and a README', () => {
    const dir = join(DEPLOY, 'k6');
    const scenarios = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'lib.ts').sort();
    expect(scenarios).toEqual(['inbound.ts', 'inbox.ts', 'replies.ts', 'send-api.ts', 'smoke.ts', 'soak.ts']);
    for (const f of scenarios) expect(readFileSync(join(dir, f), 'utf8')).toMatch(/thresholds/);
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
  });

  test('no scenario signs in per iteration (the API allows 60 sign-ins a minute per address): setup() or once per VU', () => {
    const dir = join(DEPLOY, 'k6');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts') && n !== 'lib.ts')) {
      const src = readFileSync(join(dir, f), 'utf8');
      for (const line of src.split('\n').filter((l) => /\blogin\(/.test(l) && !/^\s*(\*|\/\/)/.test(l) && !/import /.test(l))) {
        // Allowed: the VU's session made once (`session ??= login(...)`), renewed after a 401 (`session = login(...)`), or setup()'s.
        expect({ f, line: line.trim(), ok: /session \?\?= login\(|session = login\(|return login\(/.test(line) }).toEqual({ f, line: line.trim(), ok: true });
      }
    }
    const smoke = readFileSync(join(dir, 'smoke.ts'), 'utf8');
    expect(smoke).toMatch(/export function setup\(\)[^{]*\{\s*return login\(/);
    expect(smoke).not.toMatch(/LOGIN_EVERY/);
    // The compose k6 service goes through Caddy by its service name, which the Caddyfile serves whatever SITE_ADDRESS is.
    expect(readFileSync(join(DEPLOY, 'Caddyfile'), 'utf8')).toMatch(/^\{\$SITE_ADDRESS::80\}, \{\$INTERNAL_ADDRESS:http:\/\/proxy\} \{$/m);
  });
});
