import { describe, expect, it } from "vitest";
import { validateDefinition } from "./validate";
import {
  isCommitSha,
  parseRepositoryUrl,
  repositoryRefProblem,
  repositoryUrlProblem,
  RepositoryOverride,
} from "./repository";

describe("repository URLs", () => {
  it.each([
    ["https://github.com/acme/app.git", { kind: "https", host: "github.com" }],
    [
      "https://git.example.com:8443/acme/app",
      { kind: "https", host: "git.example.com", port: 8443 },
    ],
    ["https://x-token@github.com/acme/app.git", { kind: "https", host: "github.com" }],
    ["https://[2001:db8::1]/r.git", { kind: "https", host: "2001:db8::1" }],
    ["ssh://git@github.com/acme/app.git", { kind: "ssh", host: "github.com" }],
    ["git@github.com:acme/app.git", { kind: "ssh", host: "github.com" }],
    ["github.com:acme/app.git", { kind: "ssh", host: "github.com" }],
    ["file:///srv/git/app.git", { kind: "file" }],
    ["file://localhost/srv/git/app.git", { kind: "file" }],
    ["/srv/git/app.git", { kind: "file" }],
  ])("accepts %s", (url, expected) => {
    expect(parseRepositoryUrl(url)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["ext::sh -c touch% /tmp/pwned", /transport helpers \("ext::"\)/],
    ["fd::17", /transport helpers/],
    ["-oProxyCommand=touch /tmp/pwned", /must not start with "-"/],
    ["--upload-pack=touch /tmp/x", /must not start with "-"/],
    [
      "ssh://-oProxyCommand=touch%20x/repo",
      /host "-oProxyCommand=touch%20x" must not start with "-"/,
    ],
    ["-oProxyCommand=x:repo", /must not start with "-"/],
    ["git@-oProxyCommand=x:repo", /host "-oProxyCommand=x" must not start with "-"/],
    ["-user@host:repo", /must not start with "-"/],
    ["ssh://-user@host/repo", /user must not start with "-"/],
    ["http://example.com/app.git", /use https/],
    ["git://example.com/app.git", /"git:\/\/" scheme is not allowed/],
    ["ftp://example.com/app.git", /not allowed/],
    ["https://user:hunter2@github.com/a.git", /must not contain a password.*credentialsSecret/],
    ["file://otherhost/srv/app.git", /must be local/],
    ["relative/path", /not a repository URL/],
    ["https://exa mple.com/a.git", /spaces or control characters/],
    ["https://github.com/a.git\n", /spaces or control characters/],
    ["", /empty/],
  ])("refuses %j", (url, message) => {
    expect(repositoryUrlProblem(url)).toMatch(message);
  });
});

describe("repository refs", () => {
  it.each([
    "main",
    "release/1.2",
    "v1.0.0",
    "0123456789abcdef0123456789abcdef01234567",
    "feat_x-y",
  ])("accepts %s", (ref) => expect(repositoryRefProblem(ref)).toBeNull());
  it.each([
    ["", /empty/],
    ["--upload-pack=x", /must not start with "-"/],
    ["-b", /must not start with "-"/],
    ["a b", /not a valid git ref/],
    ["a..b", /not a valid git ref/],
    ["main@{1}", /not a valid git ref/],
    ["HEAD~1", /not a valid git ref/],
    ["refs/heads/x:refs/heads/y", /not a valid git ref/],
    ["x.lock", /not a valid git ref/],
    ["/main", /not a valid git ref/],
  ])("refuses %j", (ref, message) => expect(repositoryRefProblem(ref)).toMatch(message));

  it("knows a full commit id", () => {
    expect(isCommitSha("0123456789abcdef0123456789abcdef01234567")).toBe(true);
    expect(isCommitSha("0123456")).toBe(false);
  });
});

describe("repository in definitions and run overrides", () => {
  const def = (repository: unknown) => ({
    schemaVersion: 1,
    name: "R",
    repository,
    steps: [{ id: "s", type: "script", config: { command: "ls", writable: true } }],
  });

  it("is optional and validated with the field's path", () => {
    expect(validateDefinition(def(undefined)).ok).toBe(true);
    expect(validateDefinition(def({ url: "/srv/app.git", ref: "main" })).ok).toBe(true);
    const bad = validateDefinition(def({ url: "ext::sh -c x", ref: "-x", token: "t" }));
    expect(bad.ok).toBe(false);
    expect(bad.issues.map((i) => i.path.join("."))).toEqual(
      expect.arrayContaining(["repository.url", "repository.ref"]),
    );
    expect(bad.issues.some((i) => /token/.test(i.message))).toBe(true);
  });

  it("override: a ref, or a URL and a ref", () => {
    expect(RepositoryOverride.safeParse({ ref: "main" }).success).toBe(true);
    expect(RepositoryOverride.safeParse({ url: "/srv/a.git", ref: "v2" }).success).toBe(true);
    expect(RepositoryOverride.safeParse({ url: "/srv/a.git" }).success).toBe(false);
    expect(RepositoryOverride.safeParse({ url: "-oProxyCommand=x", ref: "main" }).success).toBe(
      false,
    );
  });
});
