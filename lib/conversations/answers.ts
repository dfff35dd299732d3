/**
 * The chat's answers as the server streamed them, each with the knowledge bases its tool results drew from,
 * kept until a conversation save takes them: a saved answer is this copy, never what the browser sent
 * (lib/conversations/save.ts). A side table, so any replica's save finds an answer another one streamed.
 */
import { Schema } from "apache-arrow";
import { getStore, perStore, type Store } from "@/lib/store";
import { textField } from "@/lib/store/schema";
import { sqlEq, sqlIn, sqlString } from "@/lib/store/sql";
import type { StoredMessage } from "./schema";

const ANSWERS_TABLE = "chat_answers";
const answersSchema = new Schema([textField("id"), textField("owner"), textField("message"), textField("created_at")]);

/** An answer no conversation took within this long is dropped (a chat closed before its turn was saved). */
const UNSAVED_ANSWER_MS = 24 * 3600_000;
/** How long a save waits for an answer still being recorded (a stopped answer is recorded as its stream is cancelled). */
const RECORDING_WAIT_MS = 10_000;

/**
 * An answer as recorded: the streamed message with `kbs`, the knowledge bases it drew from, and the question it
 * answers (a note kept before its conversation is saved takes its title from it).
 */
type RecordedMessage = StoredMessage & { kbs: string[]; question?: string };

interface AnswerRecorder {
  record(message: StoredMessage, kbs: readonly string[]): Promise<void>;
  abandon(): void;
}

export interface AnswerStore {
  /**
   * Marks answer `id` of `owner` (a user id; null for the admin secret's) under way: until it is recorded (or
   * abandoned, when no answer streamed) a save that names it waits for it. `question`: what it answers.
   */
  begin(id: string, owner: string | null, question?: string): AnswerRecorder;
  /** The recorded answers among `ids` that `owner` asked for. */
  take(owner: string | null, ids: readonly string[]): Promise<Map<string, RecordedMessage>>;
  /** Drops answers a conversation now holds, and those no conversation took in a day. */
  forget(ids: readonly string[]): Promise<void>;
}

async function openAnswers(store: Store): Promise<AnswerStore> {
  const side = await store.sideTable(ANSWERS_TABLE, answersSchema);
  /** Answers of this process still streaming: a save waits for them (stop, then save at once). */
  const underWay = new Map<string, Promise<void>>();
  return {
    begin(id, owner, question) {
      let done = () => {};
      underWay.set(
        id,
        new Promise<void>((resolve) => {
          done = resolve;
        }),
      );
      const settle = () => {
        underWay.delete(id);
        done();
      };
      return {
        async record(message, kbs) {
          try {
            const recorded: RecordedMessage = { ...message, id, kbs: [...kbs], ...(question ? { question } : {}) };
            const row = { id, owner: owner ?? "", message: JSON.stringify(recorded), created_at: new Date().toISOString() };
            await side.write((t) => t.add([row]));
          } finally {
            settle();
          }
        },
        abandon: settle,
      };
    },
    async take(owner, ids) {
      const waiting = ids.flatMap((id) => underWay.get(id) ?? []);
      if (waiting.length)
        await Promise.race([Promise.all(waiting), new Promise((resolve) => setTimeout(resolve, RECORDING_WAIT_MS).unref())]);
      const rows = ids.length
        ? await side.table
            .query()
            .where(`${sqlIn("id", ids)} AND ${sqlEq("owner", owner ?? "")}`)
            .toArray()
        : [];
      return new Map(rows.map((r) => [String(r.id), JSON.parse(String(r.message)) as RecordedMessage]));
    },
    async forget(ids) {
      const stale = new Date(Date.now() - UNSAVED_ANSWER_MS).toISOString();
      await side.write((t) => t.delete(`${sqlIn("id", ids)} OR created_at < ${sqlString(stale)}`));
    },
  };
}

const answersOf = perStore("chat-answers", openAnswers);

export async function getAnswers(store?: Store): Promise<AnswerStore> {
  return answersOf(store ?? (await getStore()));
}
