import { API_SECTIONS, AUTH_SECTIONS, CLI_SECTIONS, DELIVERY_SECTIONS } from './apps';
import { ConfigOf, loadSections } from './section';
import { localStack } from './settings';

/** The injection token of the validated configuration in every app's module graph. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** Every section of every app: what `npm start` runs in one process, and the tests. */
export const ALL_SECTIONS = [
  ...API_SECTIONS,
  ...AUTH_SECTIONS,
  ...DELIVERY_SECTIONS,
  ...CLI_SECTIONS,
] as const;

/** The whole configuration; each app's own (ApiConfig, ...) is a part of it. */
export type AppConfig = ConfigOf<typeof ALL_SECTIONS>;

/** Every section at once: `npm start` and the test harness, which run all three apps. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return loadSections(ALL_SECTIONS, env);
}

/** `npm start`'s own variables (LOCAL_*), read besides the whole configuration. */
export function loadLocalStackVariables(env: NodeJS.ProcessEnv = process.env) {
  return loadSections([localStack], env).local;
}
