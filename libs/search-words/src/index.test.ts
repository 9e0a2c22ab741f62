import { describe, expect, it } from "vitest";
import { CJK_RUN, cjkPairs, websearchText } from "./index.ts";

describe("search words", () => {
  it("writes a CJK run as its overlapping pairs, a single character as itself", () => {
    expect(cjkPairs("ログイン")).toBe("ログ グイ イン");
    expect(cjkPairs("課金")).toBe("課金");
    expect(cjkPairs("剣")).toBe("剣");
    expect(cjkPairs("검색어")).toBe("검색 색어");
  });

  it("quotes each CJK run's pairs as a phrase and leaves other words as they are", () => {
    expect(websearchText("ログイン")).toBe(' "ログ グイ イン" ');
    expect(websearchText("refund ログイン -crash")).toBe('refund  "ログ グイ イン"  -crash');
    // Inside a quoted phrase the pairs already must follow each other: no quotes of their own.
    expect(websearchText('"アカウント 削除"')).toBe('" アカ カウ ウン ント   削除 "');
    expect(websearchText("Rückerstattung Häuser")).toBe("Rückerstattung Häuser");
  });

  it("finds Japanese, Chinese and Korean runs, not Latin, Cyrillic or Arabic words", () => {
    expect("ログイン, 登录 und 로그인 statt login".match(CJK_RUN)).toEqual(["ログイン", "登录", "로그인"]);
    expect("вход تسجيل".match(CJK_RUN)).toBeNull();
  });
});
