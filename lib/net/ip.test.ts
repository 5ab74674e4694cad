import { describe, expect, it } from "vitest";
import { classifyAddress, normalizeIp, parseIp } from "./ip";
import { allowedHostEntryProblem, classifyHostName, compileHostAllowList } from "./host-allow-list";

describe("normalizeIp", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["10.1", "10.0.0.1"],
    ["[::1]", "::1"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["fe80::1%eth0", "fe80::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeIp(input)).toBe(expected);
  });

  it.each(["example.com", "1.example.com", "256.0.0.1", "1.2.3.4.5", "::1::2", "12345::", ""])(
    "%s is not an IP",
    (input) => {
      expect(parseIp(input)).toBeNull();
    },
  );
});

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["2606:4700:4700::1111", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.1.2", "loopback"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:7f00:1::", "loopback"],
    ["10.0.0.5", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["::ffff:192.168.1.1", "private"],
    ["fd12:3456::1", "private"],
    ["fc00::1", "private"],
    ["100.64.0.1", "shared"],
    ["100.127.255.255", "shared"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["::ffff:169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe("classifyHostName", () => {
  it("recognises metadata names and localhost", () => {
    expect(classifyHostName("metadata.google.internal")).toBe("metadata");
    expect(classifyHostName("METADATA.google.internal.")).toBe("metadata");
    expect(classifyHostName("localhost")).toBe("loopback");
    expect(classifyHostName("api.localhost")).toBe("loopback");
    expect(classifyHostName("example.com")).toBeNull();
  });
});

describe("allow-list entries", () => {
  it.each(["10.0.0.0/8", "fd00::/8", "192.168.1.10", "::1", "build.internal", "*.corp.example"])(
    "accepts %s",
    (entry) => {
      expect(allowedHostEntryProblem(entry)).toBeNull();
    },
  );
  it.each(["10.0.0.0/33", "http://x", "not a host", " x.com", "Upper.Case", "a/b"])(
    "refuses %s",
    (entry) => {
      expect(allowedHostEntryProblem(entry)).not.toBeNull();
    },
  );

  it("matches names, wildcards, IPs and ranges", () => {
    const list = compileHostAllowList(["build.internal", "*.corp.example", "10.1.0.0/16", "::1"]);
    expect(list.matchName("build.internal")).toBe("exact");
    expect(list.matchName("BUILD.internal.")).toBe("exact");
    expect(list.matchName("other.internal")).toBeNull();
    expect(list.matchName("a.corp.example")).toBe("wildcard");
    expect(list.matchName("corp.example")).toBeNull();
    expect(list.allowsAddress(parseIp("10.1.2.3")!, "private")).toBe(true);
    expect(list.allowsAddress(parseIp("::ffff:10.1.2.3")!, "private")).toBe(true);
    expect(list.allowsAddress(parseIp("10.2.0.1")!, "private")).toBe(false);
    expect(list.allowsAddress(parseIp("::1")!, "loopback")).toBe(true);
  });

  it("opens metadata endpoints only through an exact entry", () => {
    const broad = compileHostAllowList(["169.254.0.0/16"]);
    expect(broad.allowsAddress(parseIp("169.254.1.1")!, "link-local")).toBe(true);
    expect(broad.allowsAddress(parseIp("169.254.169.254")!, "metadata")).toBe(false);
    const exact = compileHostAllowList(["169.254.169.254"]);
    expect(exact.allowsAddress(parseIp("169.254.169.254")!, "metadata")).toBe(true);
  });
});
