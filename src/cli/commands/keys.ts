import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config/index.js';
import { AppError, createCommon, createLogger, isoMs } from '../../core/index.js';
import { SCOPES, TIERS, createKeyService, isTier, parseExpiry, parseScopes } from '../../keys/index.js';
import { type ApiKeyRecord, type Scope, type Store, createStore } from '../../store/index.js';

/**
 * `gamba-analytics keys create|list|revoke` (docs/design.md §4: operators manage keys with the CLI).
 * The key text is printed once at creation; only its SHA-256 is stored. `--json` prints
 * machine-readable output on stdout (logs go to stderr). `--scopes` and `--publishable
 * --origin` set a key's scopes and make a browser key (docs/design.md §4 "Scopes and publishable keys").
 */
export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys (stored in the DATABASE_URL store)');

  keys
    .command('create')
    .description('issue a new API key; the key is shown once')
    .requiredOption('--name <name>', 'who or what the key is for')
    .option('--tier <tier>', `rate-limit tier: ${TIERS.join(' | ')} (required unless --publishable)`, parseTier)
    .option('--scopes <list>', `comma-separated scopes: ${SCOPES.join(',')} (default: all; publishable keys: read)`, parseScopeList)
    .option('--publishable', 'a browser key: read-only, tier publishable, accepted only from --origin')
    .option('--origin <origin>', 'publishable keys: an allowed origin such as https://casino.example (repeatable)', (v: string, acc: string[] = []) => [...acc, v])
    .option('--rpm <n>', 'enterprise only: requests per minute', parsePositiveInt)
    .option('--burst <n>', 'enterprise only: burst (bucket capacity)', parsePositiveInt)
    .option('--expires <when>', 'lifetime such as 90d, 12h, 2w, 1y, or an ISO 8601 date (default: never)')
    .option('--json', 'print {"id","key","tier",…} as JSON')
    .action(async (opts: { name: string; tier?: ApiKeyRecord['tier']; scopes?: Scope[]; publishable?: boolean; origin?: string[]; rpm?: number; burst?: number; expires?: string; json?: boolean }) => {
      if (opts.publishable && opts.tier !== undefined) throw new AppError('INVALID_ARGUMENT', '--tier cannot be given with --publishable (publishable keys have their own tier)');
      if (!opts.publishable && opts.tier === undefined) throw new AppError('INVALID_ARGUMENT', '--tier is required (or --publishable)');
      await withStore(async (store, now) => {
        const expiresAt = opts.expires === undefined ? undefined : parseExpiry(opts.expires, now);
        const service = createKeyService({ store: store.keys, clock: { now: () => now } });
        const { id, key, record } = await service.create({
          name: opts.name, tier: opts.tier, scopes: opts.scopes, publishable: opts.publishable, origins: opts.origin, rpm: opts.rpm, burst: opts.burst, expiresAt,
        });
        if (opts.json) {
          print(JSON.stringify({
            id, key, tier: record.tier, name: record.name, rpm: record.rpm, burst: record.burst, expiresAt: isoOrNull(record.expiresAt),
            scopes: record.scopes, publishable: record.publishable, origins: record.origins,
          }));
          return;
        }
        const kind = record.publishable ? `publishable key for ${record.origins.join(', ')}` : 'API key';
        print(`Created ${kind} ${id} "${record.name}": tier ${record.tier}, ${record.rpm} requests/min, burst ${record.burst}, scopes ${record.scopes.join(',')}, expires ${isoOrNull(record.expiresAt) ?? 'never'}.`);
        print('The key is shown only now; store it safely:');
        print(key);
      });
    });

  keys
    .command('list')
    .description('list keys (never the key text)')
    .option('--json', 'print a JSON array')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store, now) => {
        const rows = (await store.keys.list()).map((r) => describe(r, now));
        if (opts.json) {
          print(JSON.stringify(rows));
          return;
        }
        if (rows.length === 0) {
          print('No API keys. Create one with: gamba-analytics keys create --name NAME --tier standard');
          return;
        }
        const header = ['ID', 'NAME', 'TIER', 'RPM', 'BURST', 'STATUS', 'CREATED', 'EXPIRES', 'SCOPES', 'ORIGINS'];
        const table = rows.map((r) => [r.id, r.name, r.tier, String(r.rpm), String(r.burst), r.status, r.createdAt, r.expiresAt ?? 'never', r.scopes.join(','), r.origins.join(' ')]);
        const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
        for (const row of [header, ...table]) print(row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
      });
    });

  keys
    .command('revoke')
    .description('revoke a key by id (takes effect on the next request)')
    .argument('<id>', 'key id, as shown by keys list')
    .action(async (id: string) => {
      await withStore(async (store, now) => {
        const service = createKeyService({ store: store.keys, clock: { now: () => now } });
        if (!(await service.revoke(id))) throw new AppError('INVALID_ARGUMENT', `no active key with id ${JSON.stringify(id)}`);
        print(`Revoked ${id}.`);
      });
    });
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : isoMs(ms);
}

function describe(r: ApiKeyRecord, now: number) {
  const status = r.revokedAt !== null ? 'revoked' : r.expiresAt !== null && r.expiresAt <= now ? 'expired' : 'active';
  return {
    id: r.id,
    name: r.name,
    tier: r.tier,
    rpm: r.rpm,
    burst: r.burst,
    scopes: r.scopes,
    publishable: r.publishable,
    origins: r.origins,
    status,
    createdAt: isoMs(r.createdAt),
    expiresAt: isoOrNull(r.expiresAt),
    revokedAt: isoOrNull(r.revokedAt),
  };
}

/** Opens the configured store (logs to stderr so stdout stays machine-readable), runs `fn`, closes. */
async function withStore(fn: (store: Store, now: number) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const common = createCommon({ logger: createLogger({ level: config.logLevel === 'info' ? 'warn' : config.logLevel, destination: process.stderr }) });
  const store = await createStore({ common, config: config.store });
  try {
    await fn(store, common.clock.now());
  } finally {
    await store.close();
  }
}

function parseTier(value: string): ApiKeyRecord['tier'] {
  if (!isTier(value)) throw new InvalidArgumentError(`must be one of ${TIERS.join(', ')}`);
  return value;
}

function parseScopeList(value: string): Scope[] {
  try {
    return parseScopes(value);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
  }
}

function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('must be an integer ≥ 1');
  return Number(value);
}
