import { describe, expect, it } from "vitest";
import { activePath, mergePath, normalizeTree, siblingsOf, switchTo } from "./branches";

const m = (id: string, role = "user") => ({ id, role });
const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

describe("conversation branches", () => {
  it("reads an old conversation (no parentId) as one branch", () => {
    const tree = normalizeTree([m("q1"), m("a1", "assistant"), m("q2"), m("a2", "assistant")]);
    expect(ids(activePath(tree))).toEqual(["q1", "a1", "q2", "a2"]);
    expect(tree[2].parentId).toBe("a1");
  });

  it("keeps the later turns of the first version when an earlier answer is regenerated", () => {
    let tree = normalizeTree([m("q1"), m("a1", "assistant"), m("q2"), m("a2", "assistant")]);
    tree = mergePath(tree, [m("q1"), m("a1b", "assistant")]);
    expect(ids(activePath(tree))).toEqual(["q1", "a1b"]);
    expect(ids(siblingsOf(tree, "a1b"))).toEqual(["a1", "a1b"]);
    expect(tree).toHaveLength(5);
    tree = switchTo(tree, "a1");
    expect(ids(activePath(tree))).toEqual(["q1", "a1", "q2", "a2"]);
    tree = switchTo(tree, "a1b");
    expect(ids(activePath(tree))).toEqual(["q1", "a1b"]);
  });

  it("an edited question is a sibling of the original, each with its own answers", () => {
    let tree = normalizeTree([m("q1"), m("a1", "assistant")]);
    tree = mergePath(tree, [m("q1b"), m("a1c", "assistant")]);
    expect(ids(siblingsOf(tree, "q1"))).toEqual(["q1", "q1b"]);
    expect(ids(switchTo(tree, "q1").slice(-1))).toEqual(["a1"]);
  });

  it("updates a known message in place", () => {
    const tree = mergePath(normalizeTree([{ ...m("q1"), text: "x" }]), [{ ...m("q1"), text: "y" }]);
    expect(tree).toEqual([{ id: "q1", role: "user", text: "y", parentId: null }]);
  });
});
