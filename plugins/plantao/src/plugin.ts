import { join } from 'node:path';
import { definePlugin, type PluginDefinition } from '@atendo/sdk';
import { ticketsService } from '@atendo/plugin-tickets/contract';
import { connectionsService } from '@atendo/plugin-connections/contract';
import { contactsService } from '@atendo/plugin-contacts/contract';
import { errors, plantaoTick } from './contract';
import { PlantaoConfig } from './schemas/config';
import { PlantaoStore } from './services/plantao';
import { runTick } from './services/notifier';
import { plantaoRoutes } from './routes/plantao';

/**
 * The plantao plugin (on-duty roster): owns `plantao_entries`, serves `/plantao` and runs the notifier
 * (`plantao.tick`, every PLANTAO_CRON, once across nodes). `now` is the notifier's clock (tests fix it).
 */
export function createPlantaoPlugin(opts: { now?: () => Date } = {}): PluginDefinition<PlantaoConfig> {
  return definePlugin<PlantaoConfig>({
    id: 'plantao',
    dependsOn: ['tickets', 'connections', 'contacts'],
    errors,
    configSchema: PlantaoConfig,
    migrationsDir: join(__dirname, '..', 'migrations'),
    async register(ctx) {
      const store = new PlantaoStore(ctx.db, ctx.realtime, ctx.identity);
      const deps = {
        db: ctx.db,
        bus: ctx.bus,
        log: ctx.log,
        identity: ctx.identity,
        tickets: ((s) => () => s)(ctx.services.get(ticketsService)),
        connections: ((s) => () => s)(ctx.services.get(connectionsService)),
        contacts: ((s) => () => s)(ctx.services.get(contactsService)),
        now: opts.now ?? (() => new Date()),
      };
      ctx.jobs.handle(plantaoTick, async () => void (await runTick(deps)), { maxAttempts: 1 });
      await ctx.jobs.every(plantaoTick, ctx.config.cron, {});
      await plantaoRoutes(ctx.app, { store });
    },
  });
}

