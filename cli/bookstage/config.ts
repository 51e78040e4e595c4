// Where the CLI finds the API and its token: a --profile from the config
// file, else BOOKSTAGE_URL / BOOKSTAGE_TOKEN, else the file's `default`
// profile. The file lives under the user's config directory and must be
// private (mode 0600), since it holds tokens: a token need not live in shell
// history or the environment.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError, EXIT } from './exit-codes.js';

export interface Profile {
  url: string;
  token: string;
}
interface ConfigFile {
  profiles: Record<string, Partial<Profile>>;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'bookstage', 'config.json');
}

function readConfig(path: string): ConfigFile {
  if (!existsSync(path)) return { profiles: {} };
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) {
    throw new CliError(
      `${path} is readable by others (mode ${mode.toString(8)}); it holds tokens. Run: chmod 600 ${path}`,
      EXIT.badInput,
    );
  }
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<ConfigFile>;
    return { profiles: parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {} };
  } catch (err) {
    throw new CliError(`${path} is not valid JSON: ${(err as Error).message}`, EXIT.badInput);
  }
}

/** The API's URL and token for this invocation. */
export function resolveProfile(profileName: string | undefined, env: NodeJS.ProcessEnv = process.env): Profile {
  const path = configPath(env);
  let url: string | undefined;
  let token: string | undefined;
  if (profileName) {
    const profile = readConfig(path).profiles[profileName];
    if (!profile)
      throw new CliError(
        `no profile "${profileName}" in ${path}; add one with: bookstage profile set ${profileName} --url URL`,
        EXIT.badInput,
      );
    ({ url, token } = profile);
  } else {
    url = env.BOOKSTAGE_URL || undefined;
    token = env.BOOKSTAGE_TOKEN || undefined;
    if (!url || !token) {
      const fallback = readConfig(path).profiles.default ?? {};
      url ??= fallback.url;
      token ??= fallback.token;
    }
  }
  if (!url)
    throw new CliError('no API URL: set BOOKSTAGE_URL (e.g. http://127.0.0.1:8080) or use --profile', EXIT.badInput);
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new CliError(`the API URL "${url}" is not an http(s) URL`, EXIT.badInput);
  if (!token)
    throw new CliError(
      'no token: set BOOKSTAGE_TOKEN or use --profile (tokens come from `npm run admin -- tokens create`)',
      EXIT.auth,
    );
  return { url: url.replace(/\/+$/, ''), token };
}

/** Add or replace a profile; the file is created with mode 0600 and kept so. */
export function saveProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  const path = configPath(env);
  const config = readConfig(path);
  config.profiles[name] = profile;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

export function listProfiles(env: NodeJS.ProcessEnv = process.env): Array<{ name: string; url: string | undefined }> {
  return Object.entries(readConfig(configPath(env)).profiles).map(([name, p]) => ({ name, url: p.url }));
}
