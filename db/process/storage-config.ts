/** The kinds of blobs Hearth stores, each with the INI section that may override its storage (Gitea's names). */
export const blobKinds = {
  attachments: 'attachment',
  packages: 'packages',
  avatars: 'avatar',
} as const;
export type BlobKind = keyof typeof blobKinds;

export interface MinioTarget {
  type: 'minio';
  /** host:port, without a scheme. */
  endpoint: string;
  accessKeyId: string;
  /** A secret: never logged nor shown. */
  secretAccessKey: string;
  bucket: string;
  location: string;
  useSsl: boolean;
  /** Prefix of this kind's keys, ending in `/` unless empty. */
  basePath: string;
  serveDirect: boolean;
}

/** Where one kind of blob lives; `local` is `$HEARTH_DATA_DIR/blobs`, shared by every kind. */
export type StorageTarget = { type: 'local' } | MinioTarget;

export interface StorageKeys {
  storageType?: 'local' | 'minio';
  minioEndpoint?: string;
  minioAccessKeyId?: string;
  minioSecretAccessKey?: string;
  minioBucket?: string;
  minioLocation?: string;
  minioUseSsl?: boolean;
  minioBasePath?: string;
  serveDirect?: boolean;
}

/**
 * Gitea's reading of storage settings (modules/setting/storage.go): a kind's section with its own STORAGE_TYPE names
 * the store itself (keys it leaves out come from [storage]) and its base path defaults to `<kind>/`; without one the
 * kind takes [storage]'s store, may change MINIO_BUCKET, MINIO_BASE_PATH and SERVE_DIRECT, and its base path
 * defaults to [storage]'s MINIO_BASE_PATH followed by `<kind>/`.
 */
export function resolveStorage(defaults: Required<StorageKeys>, sections: Record<BlobKind, StorageKeys>): Record<BlobKind, StorageTarget> {
  const resolved = {} as Record<BlobKind, StorageTarget>;
  for (const kind of Object.keys(blobKinds) as BlobKind[]) {
    const own = sections[kind];
    const standalone = own.storageType !== undefined;
    const type = own.storageType ?? defaults.storageType;
    if (type === 'local') {
      resolved[kind] = { type };
      continue;
    }
    const pick = <K extends keyof StorageKeys>(name: K): Required<StorageKeys>[K] => (standalone ? own[name] ?? defaults[name] : defaults[name]) as Required<StorageKeys>[K];
    const inherited = defaults.minioBasePath ? `${defaults.minioBasePath.replace(/\/+$/, '')}/${kind}/` : `${kind}/`;
    resolved[kind] = {
      type,
      endpoint: pick('minioEndpoint'),
      accessKeyId: pick('minioAccessKeyId'),
      secretAccessKey: pick('minioSecretAccessKey'),
      bucket: own.minioBucket ?? defaults.minioBucket,
      location: pick('minioLocation'),
      useSsl: pick('minioUseSsl'),
      basePath: normalizeBasePath(own.minioBasePath ?? (standalone ? `${kind}/` : inherited)),
      serveDirect: own.serveDirect ?? defaults.serveDirect,
    };
  }
  return resolved;
}

function normalizeBasePath(value: string): string {
  const trimmed = value.replace(/^\/+/, '').replace(/\/+$/, '');
  return trimmed ? `${trimmed}/` : '';
}
