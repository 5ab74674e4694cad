import Bowser from "bowser";

/**
 * "Firefox 133 on macOS", "Chrome 131 on Android", or the first characters of a string no parser
 * recognises (curl, bots), so a person can tell their sessions apart at a glance.
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  const ua = userAgent?.trim();
  if (!ua) return "Unknown client";
  const { browser, os } = Bowser.parse(ua);
  const major = browser.version?.split(".")[0];
  const name = browser.name ? [browser.name, major].filter(Boolean).join(" ") : undefined;
  const system = os.name ? (os.versionName ? `${os.name} ${os.versionName}` : os.name) : undefined;
  if (name && system) return `${name} on ${system}`;
  if (name ?? system) return (name ?? system)!;
  return ua.length > 60 ? `${ua.slice(0, 57)}…` : ua;
}
