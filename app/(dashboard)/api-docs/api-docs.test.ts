/** The API reference page renders every documented operation from the OpenAPI document. */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/server/http/operations";
import ApiDocsPage from "./page";

describe("API reference page", () => {
  it("lists each operation with its method, path, role and statuses", () => {
    const html = renderToStaticMarkup(createElement(ApiDocsPage));
    for (const op of OPERATIONS) {
      const path = `/api/v1${op.path === "/" ? "" : op.path}`;
      expect(html).toContain(`aria-label="${op.method} ${op.path}"`);
      expect(html).toContain(`id="${op.operationId}"`);
      expect(html).toContain(path.replace(/&/g, "&amp;"));
    }
    expect(html).toContain("editor+");
    expect(html).toContain("public");
    expect(html).toContain('href="/api/v1/openapi.json"');
  });
});
