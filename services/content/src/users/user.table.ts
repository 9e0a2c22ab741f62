import type { Generated } from "kysely";

export interface UserTable {
  id: Generated<string>;
  company_id: string;
  name: string;
  email: string;
  role: Generated<"admin" | "agent">;
  display_name: string | null;
  active: Generated<boolean>;
  /** Names of the company's skill tags (tags with is_skill), in the order they were given. */
  skills: Generated<string[]>;
  /** Whether routing may assign the user tickets: their own toggle (false: away). */
  available: Generated<boolean>;
  /** Ticket languages the user speaks (API language codes); empty: every language. */
  languages: Generated<string[]>;
  /** The most open tickets routing assigns to the user. */
  capacity: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Which games a user may act on. */
export interface UserGameAccessTable {
  company_id: string;
  user_id: string;
  game_id: string;
  created_at: Generated<Date>;
}

export interface UserTables {
  users: UserTable;
  user_game_access: UserGameAccessTable;
}
