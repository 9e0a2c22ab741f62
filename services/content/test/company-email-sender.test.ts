// A company's mail sender (its tenant file's company.email), against real Postgres: stored by
// the apply and given by GetCompany; the same file again writes nothing; an edited sender is
// applied to the company the file created (the admin tool leaves it out of the digest); a bad
// value is refused at its path and leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyTenant } from "../src/tenants/tenant.service.ts";
import { failureOf, startContent, type ContentTestContext } from "./context.ts";

let ctx: ContentTestContext;

beforeAll(async () => {
  ctx = await startContent();
});
afterAll(() => ctx?.stop());

let digestCounter = 0;
const digest = () => (digestCounter += 1).toString(16).padStart(64, "c");

const companyRow = (companyId: string) =>
  ctx.db.selectFrom("companies").select(["email_sender_name", "email_sender_address", "updated_at"]).where("id", "=", companyId).executeTakeFirstOrThrow();

describe("a company's mail sender", () => {
  it("is stored by the apply and given by GetCompany; absent, GetCompany gives none", async () => {
    const applied = await applyTenant(ctx.db, digest(), { company: { name: "Star Studio", email: { senderName: "Star Studio Support", senderAddress: "help@studio.example" } } });
    const { company } = await ctx.client.getCompany({ companyId: applied.companyId });
    expect(company?.emailSenderName).toBe("Star Studio Support");
    expect(company?.emailSenderAddress).toBe("help@studio.example");

    const plain = await applyTenant(ctx.db, digest(), { company: { name: "Plain Studio" } });
    const { company: plainCompany } = await ctx.client.getCompany({ companyId: plain.companyId });
    expect(plainCompany?.emailSenderName).toBeUndefined();
    expect(plainCompany?.emailSenderAddress).toBeUndefined();

    const nameOnly = await applyTenant(ctx.db, digest(), { company: { name: "Named Studio", email: { senderName: "Named Help" } } });
    const { company: named } = await ctx.client.getCompany({ companyId: nameOnly.companyId });
    expect([named?.emailSenderName, named?.emailSenderAddress]).toEqual(["Named Help", undefined]);
  });

  it("applied again unchanged writes nothing; edited, changes on the company the file created", async () => {
    const fileDigest = digest();
    const first = await applyTenant(ctx.db, fileDigest, { company: { name: "Moving Studio", email: { senderName: "Moving Support" } } });
    const before = await companyRow(first.companyId);

    const again = await applyTenant(ctx.db, fileDigest, { company: { name: "Moving Studio", email: { senderName: "Moving Support" } } });
    expect(again).toMatchObject({ companyId: first.companyId, alreadyApplied: true });
    expect(await companyRow(first.companyId)).toEqual(before);

    const edited = await applyTenant(ctx.db, fileDigest, { company: { name: "Moving Studio", email: { senderName: "Moving Help", senderAddress: "help@moving.example" } } });
    expect(edited).toMatchObject({ companyId: first.companyId, alreadyApplied: true });
    expect(await companyRow(first.companyId)).toMatchObject({ email_sender_name: "Moving Help", email_sender_address: "help@moving.example" });

    // Removed from the file: back to the defaults.
    await applyTenant(ctx.db, fileDigest, { company: { name: "Moving Studio" } });
    const { company } = await ctx.client.getCompany({ companyId: first.companyId });
    expect([company?.emailSenderName, company?.emailSenderAddress]).toEqual([undefined, undefined]);
  });

  it("refuses a bad name or address at its path and creates nothing", async () => {
    const count = async () => Number((await ctx.db.selectFrom("companies").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
    const companies = await count();
    const failure = await failureOf(
      applyTenant(ctx.db, digest(), { company: { name: "Bad Studio", email: { senderName: "Bad\nBcc: x@example.com", senderAddress: "Bad <help@studio.example>" } } }),
    );
    expect(failure.code).toBe("invalid_argument");
    expect(failure.issues).toEqual([
      { path: "/company/email/senderName", message: "must be 1-100 characters without line breaks, not blank" },
      { path: "/company/email/senderAddress", message: "must be a plain email address (name@example.com)" },
    ]);
    expect(await count()).toBe(companies);

    // An edit to a bad value of an applied file changes nothing either.
    const fileDigest = digest();
    const applied = await applyTenant(ctx.db, fileDigest, { company: { name: "Kept Studio", email: { senderAddress: "help@kept.example" } } });
    const refused = await failureOf(applyTenant(ctx.db, fileDigest, { company: { name: "Kept Studio", email: { senderAddress: "help@" } } }));
    expect(refused.issues).toEqual([{ path: "/company/email/senderAddress", message: "must be a plain email address (name@example.com)" }]);
    expect(await companyRow(applied.companyId)).toMatchObject({ email_sender_address: "help@kept.example" });
  });
});
