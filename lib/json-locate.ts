import { findNodeAtLocation, parseTree, type Node } from "jsonc-parser";

export type JsonPath = (string | number)[];

/**
 * Where a JSON path points in a document's text (offset and length), for editor markers and
 * jump-to-issue. Falls back to the deepest existing ancestor, then to the document start.
 */
export function locateJsonPath(text: string, path: JsonPath): { offset: number; length: number } {
  const root = parseTree(text);
  if (!root) return { offset: 0, length: 1 };
  for (let n = path.length; n >= 0; n--) {
    const node: Node | undefined = findNodeAtLocation(root, path.slice(0, n));
    if (node) {
      // Point at the property key when the value is an object/array: easier to read.
      const prop = node.parent?.type === "property" ? node.parent.children?.[0] : undefined;
      if (prop && (node.type === "object" || node.type === "array"))
        return { offset: prop.offset, length: prop.length };
      return { offset: node.offset, length: node.length };
    }
  }
  return { offset: 0, length: 1 };
}
