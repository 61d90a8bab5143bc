// Claude's model ids on each provider, so a session keeps one canonical (Anthropic API) id for its limits,
// prices and settings, and the client sends the provider's own id. Sources, checked 2026-12-05:
//  - Anthropic, "Model IDs and versions" (https://platform.claude.com/docs/en/about-claude/models/model-ids-and-versions):
//    from the 4.6 generation ids are dateless (`claude-sonnet-4-6`); on Bedrock `anthropic.claude-sonnet-4-6`
//    (Opus 4.6 is the last with a `-v1` suffix), on Vertex the same as the API. Dated ids before 4.6 are
//    `anthropic.<id>-v1:0` on Bedrock and `<name>@<date>` on Vertex.
//  - Anthropic, "Claude on Amazon Bedrock" (https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock):
//    the base model ids and which cross-region inference profiles (global, us, eu, jp, apac) each model has.
//  - Anthropic, "Claude on Vertex AI" (https://platform.claude.com/docs/en/build-with-claude/claude-on-vertex-ai):
//    the Vertex model names (`claude-opus-4-1@20250805`, ...).
//  - Microsoft Foundry takes Anthropic's ids as deployment names
//    (https://platform.claude.com/docs/en/build-with-claude/claude-in-microsoft-foundry).
import type { ProviderConfig, ProviderId, ProviderModel } from './providerTypes';

/** Bedrock's cross-region inference profile prefixes. */
type Geo = 'global' | 'us' | 'eu' | 'jp' | 'apac';

interface CatalogModel {
  /** The Anthropic API id (dated before the 4.6 generation). */
  id: string;
  /** Other API ids of the same model (the undated alias). */
  aliases: string[];
  /** The Bedrock base id, when it does not follow the documented rule. */
  bedrock?: string;
  /** The inference profiles Bedrock offers the model in; none: in-region only. */
  geos: Geo[];
  /** Offered on Microsoft Foundry (the current generation). */
  foundry: boolean;
}

// Newest first: the picker lists them in this order. Opus 4.7's profiles are not in the Bedrock table (it
// has no ARN-versioned id); it is assumed to have the same as Opus 4.6.
const CATALOG: readonly CatalogModel[] = [
  { id: 'claude-opus-4-7', aliases: [], geos: ['global', 'us', 'eu', 'jp', 'apac'], foundry: true },
  {
    id: 'claude-opus-4-6',
    aliases: [],
    bedrock: 'anthropic.claude-opus-4-6-v1',
    geos: ['global', 'us', 'eu', 'jp', 'apac'],
    foundry: true,
  },
  { id: 'claude-sonnet-4-6', aliases: [], geos: ['global', 'us', 'eu', 'jp'], foundry: true },
  {
    id: 'claude-sonnet-4-5-20250929',
    aliases: ['claude-sonnet-4-5'],
    geos: ['global', 'us', 'eu', 'jp'],
    foundry: true,
  },
  { id: 'claude-opus-4-5-20251101', aliases: ['claude-opus-4-5'], geos: ['global', 'us', 'eu'], foundry: true },
  {
    id: 'claude-haiku-4-5-20251001',
    aliases: ['claude-haiku-4-5'],
    geos: ['global', 'us', 'eu', 'jp', 'apac'],
    foundry: true,
  },
  { id: 'claude-opus-4-1-20250805', aliases: ['claude-opus-4-1'], geos: ['us'], foundry: true },
  {
    id: 'claude-sonnet-4-20250514',
    aliases: ['claude-sonnet-4-0'],
    geos: ['global', 'us', 'eu', 'apac'],
    foundry: false,
  },
  { id: 'claude-opus-4-20250514', aliases: ['claude-opus-4-0'], geos: ['us'], foundry: false },
  {
    id: 'claude-3-7-sonnet-20250219',
    aliases: ['claude-3-7-sonnet-latest'],
    geos: ['us', 'eu', 'apac'],
    foundry: false,
  },
  { id: 'claude-3-5-haiku-20241022', aliases: ['claude-3-5-haiku-latest'], geos: ['us'], foundry: false },
  { id: 'claude-3-haiku-20240307', aliases: [], geos: ['us', 'eu', 'apac'], foundry: false },
];

const DATED = /^(claude-[a-z0-9-]+?)-(\d{8})$/;
/** A Bedrock inference profile's prefix, e.g. `us.` or `global.`. */
const PROFILE_PREFIX = /^(global|us|us-gov|eu|jp|apac|au|ca)\./;

function catalogEntry(id: string): CatalogModel | undefined {
  const key = id.trim().toLowerCase();
  return CATALOG.find((m) => m.id === key || m.aliases.includes(key));
}

/** Bedrock's base id of a catalog model: `anthropic.<id>-v1:0` when dated, `anthropic.<id>` from 4.6 on. */
function bedrockBase(m: CatalogModel): string {
  return m.bedrock ?? (DATED.test(m.id) ? `anthropic.${m.id}-v1:0` : `anthropic.${m.id}`);
}

/** Vertex's name: `<name>@<date>` for a dated id, the API id itself from 4.6 on. */
function vertexName(id: string): string {
  const dated = DATED.exec(id);
  return dated ? `${dated[1]}@${dated[2]}` : id;
}

/** The inference-profile geography of an AWS region, as Bedrock names its profiles. */
function geoOf(region: string): Geo | undefined {
  if (/^(us|ca)-/.test(region) && !region.startsWith('us-gov-')) return 'us';
  if (region.startsWith('eu-')) return 'eu';
  if (region === 'ap-northeast-1' || region === 'ap-northeast-3') return 'jp';
  if (region.startsWith('ap-')) return 'apac';
  return undefined;
}

/** Bedrock's id for a catalog model in `region`: the region's profile, else the global one, else the base id. */
function bedrockId(m: CatalogModel, region: string): string {
  const geo = geoOf(region);
  const prefix =
    geo && m.geos.includes(geo)
      ? geo
      : geo === 'jp' && m.geos.includes('apac')
        ? 'apac'
        : m.geos.includes('global')
          ? 'global'
          : undefined;
  return prefix ? `${prefix}.${bedrockBase(m)}` : bedrockBase(m);
}

/**
 * The id to send to `provider` for `model`. A canonical Anthropic id (or its alias) becomes the provider's;
 * an id already in the provider's form, an ARN, or an id the catalog does not know passes through unchanged
 * (a Vertex name for a dated id not in the catalog is derived by the documented rule). Another cloud's id of
 * a catalog model (a setting kept after switching provider) becomes this provider's.
 */
export function providerModelId(model: string, provider: ProviderConfig): string {
  const id = model.trim();
  switch (provider.id) {
    case 'anthropic':
      return id;
    case 'foundry': {
      const entry = catalogEntry(canonicalModelId(id));
      return entry ? (entry.aliases[0] ?? entry.id) : id;
    }
    case 'bedrock': {
      // A Vertex name (a setting kept from another provider) is read as its Anthropic id first.
      const entry = catalogEntry(id.includes('@') ? canonicalModelId(id) : id);
      return entry ? bedrockId(entry, provider.region) : id;
    }
    case 'vertex': {
      if (id.includes('@')) return id;
      // A Bedrock id of a known model (a setting kept from another provider) becomes Vertex's name.
      const fromBedrock = isBedrockForm(id) ? catalogEntry(canonicalModelId(id)) : undefined;
      if (isBedrockForm(id) && !fromBedrock) return id;
      const entry = fromBedrock ?? catalogEntry(id);
      return vertexName(entry ? entry.id : id);
    }
  }
}

function isBedrockForm(id: string): boolean {
  const s = id.toLowerCase();
  return s.startsWith('arn:') || s.replace(PROFILE_PREFIX, '').startsWith('anthropic.');
}

/**
 * The Anthropic API id of a provider's model id, so the limits and price tables find its family:
 * `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and `claude-sonnet-4-5@20250929` become
 * `claude-sonnet-4-5-20250929`; an ARN is read from its last segment. An id that is not Claude's in any
 * known form comes back unchanged.
 */
export function canonicalModelId(id: string): string {
  const given = id.trim();
  let s = given.toLowerCase();
  if (s.startsWith('arn:')) s = s.slice(s.lastIndexOf('/') + 1);
  s = s.replace(PROFILE_PREFIX, '');
  if (s.startsWith('anthropic.')) s = s.slice('anthropic.'.length).replace(/-v\d+(:\d+)?$/, '');
  s = s.replace(/@(\d{8})$/, '-$1');
  if (!s.startsWith('claude-')) return given;
  const entry = catalogEntry(s);
  return entry ? entry.id : s;
}

/**
 * Claude Sonnet 4.5, Haiku 4.5, Opus 4.5 and every later model (by its Anthropic id): the generation from
 * which the clouds price regional endpoints apart and Bedrock keeps a 1-hour prompt cache.
 */
export function fromSonnet45(model: string): boolean {
  const id = canonicalModelId(model);
  return /^claude-(opus|sonnet|haiku)-4-[5-9]/.test(id) || /^claude-[a-z]+-([5-9]|\d\d)(-|@|$)/.test(id);
}

/**
 * Whether `provider` keeps a 1-hour prompt cache for `model`. Bedrock added the 1-hour TTL on 2026-01-26 for
 * Claude Haiku 4.5, Sonnet 4.5 and Opus 4.5 (and the models after them); older models there keep 5 minutes
 * (AWS, "Prompt caching for faster model inference", https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html,
 * and the model cards' "Supported TTL"). Vertex AI's Claude caching "behaves as described in the Anthropic
 * documentation" (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/prompt-caching),
 * and Foundry runs on Anthropic's own infrastructure: both take 1 hour.
 */
export function hourCacheOn(model: string, provider: ProviderConfig): boolean {
  return provider.id !== 'bedrock' || fromSonnet45(model);
}

/** The models the picker offers for `provider`, newest first, each with the id it sends. */
export function suggestedModels(provider: ProviderConfig): ProviderModel[] {
  return CATALOG.filter((m) => offeredOn(m, provider.id)).map((m) => ({
    id: providerModelId(m.id, provider),
    canonical: m.id,
  }));
}

function offeredOn(m: CatalogModel, id: ProviderId): boolean {
  if (id === 'foundry') return m.foundry;
  return true;
}

/**
 * The variable Claude Code reads for a model's own Vertex region: VERTEX_REGION_CLAUDE_<major>_<minor>_<FAMILY>
 * (claude-sonnet-4-5 → ..._4_5_SONNET, claude-opus-4 → ..._4_0_OPUS, claude-3-7-sonnet → ..._3_7_SONNET), and
 * VERTEX_REGION_CLAUDE_HAIKU_<major>_<minor> for Haiku 4.5 and later; undefined for an id of no known family.
 */
export function vertexRegionVariable(model: string): string | undefined {
  const id = canonicalModelId(model).toLowerCase();
  const named = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8}|@|$)/.exec(id);
  if (named) {
    const [, family, major, minor = '0'] = named as unknown as [string, string, string, string | undefined];
    const upper = family.toUpperCase();
    if (family === 'haiku' && Number(major) >= 4) return `VERTEX_REGION_CLAUDE_HAIKU_${major}_${minor}`;
    return `VERTEX_REGION_CLAUDE_${major}_${minor}_${upper}`;
  }
  const older = /^claude-(\d+)-(\d+)-(opus|sonnet|haiku)/.exec(id);
  return older ? `VERTEX_REGION_CLAUDE_${older[1]}_${older[2]}_${older[3]?.toUpperCase()}` : undefined;
}

/**
 * `provider` as requests for `model` see it: on Vertex, the region its VERTEX_REGION_CLAUDE_* variable names
 * when one is set; every other provider unchanged.
 */
export function providerForModel(provider: ProviderConfig, model: string): ProviderConfig {
  if (provider.id !== 'vertex' || !provider.modelRegions) return provider;
  const variable = vertexRegionVariable(model);
  const region = variable ? provider.modelRegions[variable] : undefined;
  return region && region !== provider.region ? { ...provider, region } : provider;
}
