/** Workflow versions are plain `major.minor.patch`; the first published version is 1.0.0. */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
}

export const FIRST_VERSION: SemVer = { major: 1, minor: 0, patch: 0 };

export function bumpVersion(v: SemVer, bump: "patch" | "minor" | "major"): SemVer {
  switch (bump) {
    case "major":
      return { major: v.major + 1, minor: 0, patch: 0 };
    case "minor":
      return { major: v.major, minor: v.minor + 1, patch: 0 };
    case "patch":
      return { major: v.major, minor: v.minor, patch: v.patch + 1 };
  }
}

export function formatVersion(v: SemVer): string {
  return `${v.major}.${v.minor}.${v.patch}`;
}

export function compareVersions(a: SemVer, b: SemVer): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}
