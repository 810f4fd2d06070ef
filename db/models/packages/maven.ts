import { XMLParser } from 'fast-xml-parser';
import { badRequest } from '../../errors.js';

export const mavenMetadataFile = 'maven-metadata.xml';
export const checksumKinds = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type ChecksumKind = (typeof checksumKinds)[number];

/** What a Maven repository path names. */
export interface MavenPath {
  groupId: string;
  artifactId: string;
  /** Empty for the artifact-level maven-metadata.xml, which Hearth generates from its versions. */
  version: string;
  /** The file the checksum is about, or the file itself. */
  filename: string;
  checksum: ChecksumKind | null;
}

const idPart = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const fileName = /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/;

/** The package name Gitea gives a Maven artifact. */
export const mavenPackageName = (path: Pick<MavenPath, 'groupId' | 'artifactId'>): string => `${path.groupId}:${path.artifactId}`;

/**
 * Reads `group/parts/artifact/version/file` (or `group/parts/artifact/maven-metadata.xml`); a `.md5`, `.sha1`,
 * `.sha256` or `.sha512` suffix names the checksum of the file before it. A name Maven would not write is a 400.
 */
export function parseMavenPath(raw: string): MavenPath {
  const parts = raw.split('/').filter((part) => part !== '');
  let filename = parts.at(-1) ?? '';
  let checksum: ChecksumKind | null = null;
  for (const kind of checksumKinds) {
    if (filename.endsWith(`.${kind}`)) {
      checksum = kind;
      filename = filename.slice(0, -kind.length - 1);
    }
  }
  const artifactLevel = filename === mavenMetadataFile && parts.length >= 3 && !parts.at(-2)!.endsWith('-SNAPSHOT');
  const groupEnd = artifactLevel ? parts.length - 2 : parts.length - 3;
  if (groupEnd < 1) throw badRequest('invalid maven path');
  const groupParts = parts.slice(0, groupEnd);
  const artifactId = parts[groupEnd];
  const version = artifactLevel ? '' : parts[groupEnd + 1];
  if (![...groupParts, artifactId].every((part) => idPart.test(part)) || !fileName.test(filename)) throw badRequest('invalid maven path');
  if (!artifactLevel && (!idPart.test(version) || version.length > 255)) throw badRequest('invalid maven version');
  return { groupId: groupParts.join('.'), artifactId, version, filename, checksum };
}

/**
 * Checks an uploaded POM: well-formed XML with a `project` whose coordinates, where it states them, are the
 * path's. A malformed POM is a 400 before it is stored.
 */
export function checkPom(content: Buffer, path: MavenPath): void {
  let doc: Record<string, unknown>;
  try {
    doc = new XMLParser({ ignoreAttributes: true, parseTagValue: false }).parse(content.toString('utf8'), true) as Record<string, unknown>;
  } catch {
    throw badRequest('the POM is not well-formed XML');
  }
  const project = doc.project as Record<string, unknown> | undefined;
  if (!project || typeof project !== 'object') throw badRequest('the POM has no project element');
  const parent = (project.parent ?? {}) as Record<string, unknown>;
  const groupId = String(project.groupId ?? parent.groupId ?? path.groupId);
  const artifactId = String(project.artifactId ?? '');
  const version = String(project.version ?? parent.version ?? path.version);
  if (groupId !== path.groupId || artifactId !== path.artifactId || version !== path.version) {
    throw badRequest('the POM coordinates do not match the path');
  }
}

const escapeXml = (text: string): string => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The artifact-level maven-metadata.xml, generated from the versions Hearth holds (oldest first). */
export function artifactMetadataXml(groupId: string, artifactId: string, versions: Array<{ version: string; created: Date }>): string {
  const releases = versions.filter((v) => !v.version.endsWith('-SNAPSHOT'));
  const latest = versions.at(-1);
  const lastUpdated = (latest?.created ?? new Date()).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<metadata>',
    `  <groupId>${escapeXml(groupId)}</groupId>`,
    `  <artifactId>${escapeXml(artifactId)}</artifactId>`,
    '  <versioning>',
    latest ? `    <latest>${escapeXml(latest.version)}</latest>` : '',
    releases.length ? `    <release>${escapeXml(releases.at(-1)!.version)}</release>` : '',
    '    <versions>',
    ...versions.map((v) => `      <version>${escapeXml(v.version)}</version>`),
    '    </versions>',
    `    <lastUpdated>${lastUpdated}</lastUpdated>`,
    '  </versioning>',
    '</metadata>',
    '',
  ].filter((line) => line !== '').join('\n');
}
