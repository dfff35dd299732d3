import { describe, expect, it } from "vitest";
import { answerType, askedUnit, hasAnswerOfType } from "./answer-type";

describe("count questions that name their unit", () => {
  it("reads the measure word after 多少/几", () => {
    expect(askedUnit("美国发生了多少起枪击事件？")).toBe("起");
    expect(askedUnit("将增加多少欧元的收入？")).toBe("欧元");
    expect(askedUnit("中老铁路开行了多少天？")).toBe("天");
    expect(askedUnit("同比增长了多少？")).toBeNull();
  });

  it("takes a number for the answer only when the unit asked follows it", () => {
    const q = "今年美国发生了多少起枪击事件？";
    const type = answerType(q)!;
    expect(hasAnswerOfType(type, "今年已发生419起枪击事件。", q)).toBe(true);
    expect(hasAnswerOfType(type, "已有300多起。", q)).toBe(true);
    // A date or another count is not the number asked for.
    expect(hasAnswerOfType(type, "7月31日的报道提到了枪击事件。", q)).toBe(false);
    expect(hasAnswerOfType(type, "事件造成12人受伤。", q)).toBe(false);
    const money = "预计将增加多少欧元的收入？";
    expect(hasAnswerOfType(answerType(money)!, "这项税收将带来超过20亿欧元的收入。", money)).toBe(true);
    const times = "完成了多少次出舱活动？";
    expect(hasAnswerOfType(answerType(times)!, "乘组成功完成了四次出舱活动。", times)).toBe(true);
  });

  it("keeps any number for a count question without a unit", () => {
    const q = "利润同比增长了多少？";
    expect(hasAnswerOfType(answerType(q)!, "利润同比增长16.8%。", q)).toBe(true);
  });
});
