import { describe, expect, it } from "vitest";
import { aboutAnotherEntity } from "./entities";

const passage = (text: string, context = "") => ({ n: 1, context, text });
// Made up for this test.
const RAILWAY = passage("中老铁路是一条连接中国昆明与老挝万象的电气化铁路，线路全长1035公里。");
const OFFICES = passage(
  "office: Berlin HQ\nphone: +49 30 1234567\n\noffice: Shanghai office\nphone: +86 21 5555 0000",
  "offices › Rows 1–2",
);

describe("aboutAnotherEntity (issue #43, point 11)", () => {
  it("a name the passages lack while they name another of its kind", () => {
    expect(aboutAnotherEntity("广茂铁路全长多少公里？", [RAILWAY])).toBe(true);
    expect(aboutAnotherEntity("What is the phone number of the Paris office?", [OFFICES])).toBe(true);
    expect(aboutAnotherEntity("What does the SKU-4411 adapter cost?", [passage("The SKU-4410 adapter costs 12 euros.")])).toBe(true);
  });

  it("not when the passages have the name, or nothing of its kind, or write a code with other separators", () => {
    expect(aboutAnotherEntity("中老铁路全长多少公里？", [RAILWAY])).toBe(false);
    expect(aboutAnotherEntity("What is the phone number of the Shanghai office?", [OFFICES])).toBe(false);
    expect(aboutAnotherEntity("广茂铁路全长多少公里？", [passage("该公司去年营收增长了百分之十。")])).toBe(false);
    expect(aboutAnotherEntity("What are the symptoms of COVID19?", [passage("The symptoms of COVID-19 include fever.")])).toBe(false);
  });

  it("a province or city is not the entity asked about (news leaves it implicit: 全省, 我市)", () => {
    expect(aboutAnotherEntity("河北省农业农村部门支持什么防控工作？", [passage("全省农业农村部门支持动物疫病防控工作。")])).toBe(false);
  });
});
