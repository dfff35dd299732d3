/** A citation as the chat's tests need one: number `n` of document `id`, in hr, with `page` where given. */
export const testCitation = (n: number, id: string, title: string, page?: number) => ({
  n,
  chunk_id: `${id}-c${n}`,
  document: { id, title, source: `${id}.md` },
  kb: "hr",
  heading: "",
  text: "passage",
  score: 1,
  ...(page ? { page } : {}),
});
