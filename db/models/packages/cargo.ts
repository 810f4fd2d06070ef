import semver from 'semver';
import { badRequest } from '../../errors.js';

const crateName = /^[a-zA-Z][a-zA-Z0-9-_]{0,63}$/;

/** One dependency as the sparse index lists it. */
export interface CargoIndexDependency {
  name: string;
  req: string;
  features: string[];
  optional: boolean;
  default_features: boolean;
  target: string | null;
  kind: string;
  registry: string | null;
  package: string | null;
}

/** What Hearth keeps of a published crate version: the index fields and a few descriptive ones. */
export interface CargoMetadata {
  deps: CargoIndexDependency[];
  features: Record<string, string[]>;
  links: string | null;
  rust_version: string | null;
  description: string | null;
  yanked: boolean;
}

export interface CargoPublish {
  name: string;
  version: string;
  metadata: CargoMetadata;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function checkCrateName(name: string): void {
  if (!crateName.test(name)) throw badRequest(`invalid crate name: ${name}`);
}

/**
 * Reads the metadata of the body `cargo publish` sends (a little-endian u32 length and this JSON, then a u32
 * length and the .crate file, which the registry streams on). Anything wrong is a 400 before anything is stored.
 */
export function parseCargoMetadata(json: Buffer): CargoPublish {
  let raw: unknown;
  try {
    raw = JSON.parse(json.toString('utf8'));
  } catch {
    throw badRequest('the crate metadata is not valid JSON');
  }
  if (!isObject(raw) || typeof raw.name !== 'string' || typeof raw.vers !== 'string') throw badRequest('the crate metadata lacks a name or version');
  checkCrateName(raw.name);
  if (!semver.valid(raw.vers)) throw badRequest(`invalid crate version: ${raw.vers}`);
  const deps = (Array.isArray(raw.deps) ? raw.deps : []).map((dep): CargoIndexDependency => {
    if (!isObject(dep) || typeof dep.name !== 'string' || typeof dep.version_req !== 'string') throw badRequest('a dependency is malformed');
    const explicit = optionalString(dep.explicit_name_in_toml);
    return {
      name: explicit ?? dep.name,
      req: dep.version_req,
      features: Array.isArray(dep.features) ? dep.features.filter((f): f is string => typeof f === 'string') : [],
      optional: dep.optional === true,
      default_features: dep.default_features !== false,
      target: optionalString(dep.target),
      kind: optionalString(dep.kind) ?? 'normal',
      registry: optionalString(dep.registry),
      package: explicit ? dep.name : null,
    };
  });
  const features = isObject(raw.features) ? (raw.features as Record<string, string[]>) : {};
  return {
    name: raw.name,
    version: raw.vers,
    metadata: { deps, features, links: optionalString(raw.links), rust_version: optionalString(raw.rust_version), description: optionalString(raw.description), yanked: false },
  };
}

/** The sparse index's path for a crate: 1/, 2/, 3/{c}/ or {cc}/{cc}/ and the lower-case name. */
export function indexPath(name: string): string {
  const lower = name.toLowerCase();
  if (lower.length <= 2) return `${lower.length}/${lower}`;
  if (lower.length === 3) return `3/${lower[0]}/${lower}`;
  return `${lower.slice(0, 2)}/${lower.slice(2, 4)}/${lower}`;
}
