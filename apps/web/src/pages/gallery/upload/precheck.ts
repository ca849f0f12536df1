/**
 * Client-side pre-checks before anything is sent. They mirror the server's first checks (extension, size,
 * flat folders) so that a user learns at once about an obviously wrong selection; the server still judges
 * every file (content type from the bytes, aspect ratio, resolution) and its reasons end up in the summary.
 * The 500 MB total is the server's per-request limit: the queue's requests stay far below it.
 */

export interface PrecheckRules {
  /** Lower-case extensions without the dot. */
  extensions: readonly string[];
  maxFileBytes: number;
}

export type RefusalReason = 'type' | 'size' | 'nested' | 'notInFolder' | 'empty';

export interface Refusal {
  name: string;
  reason: RefusalReason;
}

export interface PrecheckResult {
  accepted: File[];
  refused: Refusal[];
  acceptedBytes: number;
}

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** Check one file on its own: its extension and its size. */
export function checkFile(file: File, rules: PrecheckRules): RefusalReason | null {
  if (!rules.extensions.includes(extensionOf(file.name))) return 'type';
  if (file.size === 0) return 'empty';
  if (file.size > rules.maxFileBytes) return 'size';
  return null;
}

/** Split a selection into files worth sending and files refused with their reason. */
export function precheck(files: readonly File[], rules: PrecheckRules): PrecheckResult {
  const accepted: File[] = [];
  const refused: Refusal[] = [];
  let acceptedBytes = 0;
  for (const file of files) {
    const reason = checkFile(file, rules);
    if (reason) refused.push({ name: file.webkitRelativePath || file.name, reason });
    else {
      accepted.push(file);
      acceptedBytes += file.size;
    }
  }
  return { accepted, refused, acceptedBytes };
}

/** A file picked through a directory input, with the label its folder gives it. */
export interface FolderFile {
  file: File;
  label: string;
}

export interface FolderResult {
  files: FolderFile[];
  refused: Refusal[];
  labels: string[];
}

/**
 * Classified folders (SPEC §5): flat folders whose name becomes the label. With `several`, the user picked a
 * parent folder and each of its sub-folders is a class (parent/cat/1.jpg); otherwise the picked folder itself
 * is the class (cat/1.jpg). Deeper files are refused as nested, loose files beside the class folders too.
 */
export function readFolders(files: readonly File[], several: boolean): FolderResult {
  const out: FolderFile[] = [];
  const refused: Refusal[] = [];
  const labels = new Set<string>();
  const depth = several ? 3 : 2;
  for (const file of files) {
    const path = file.webkitRelativePath || file.name;
    const parts = path.split('/').filter(Boolean);
    if (parts.length > depth) refused.push({ name: path, reason: 'nested' });
    else if (parts.length < depth) refused.push({ name: path, reason: 'notInFolder' });
    else {
      const label = parts[depth - 2]!.trim();
      labels.add(label);
      out.push({ file, label });
    }
  }
  return { files: out, refused, labels: [...labels].sort((a, b) => a.localeCompare(b)) };
}
