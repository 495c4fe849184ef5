import { createAutomationPlugin } from './plugin';

/** The automation plugin (the bot); see ./plugin for the factory tests use to fix the bot's clock, and README.md. */
export default createAutomationPlugin();
