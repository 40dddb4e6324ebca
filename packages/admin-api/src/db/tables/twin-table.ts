import { type SQL, sql } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as lite from "drizzle-orm/sqlite-core";
import type { PgBuilder, SqliteBuilder, TwinColumn } from "./twin-column.js";

/**
 * What a table declares beside its columns, in either database's builders: indexes (partial
 * ones with `where`) and a composite primary key. `notEqual` is `!=` on SQLite and `<>` on
 * PostgreSQL, as the committed migrations spell their partial indexes.
 */
export interface TwinExtraKit<Column, Extra> {
  index(name: string): {
    on(...columns: [Column, ...Column[]]): Extra & { where(condition: SQL): Extra };
  };
  primaryKey(...columns: [Column, ...Column[]]): Extra;
  readonly notEqual: SQL;
}

/** The indexes and keys of a table, written once over either database's columns. */
export type TwinExtra<Key extends PropertyKey> = <Column, Extra>(
  t: Record<Key, Column>,
  k: TwinExtraKit<Column, Extra>,
) => Extra[];

const sqliteKit: TwinExtraKit<lite.SQLiteColumn, lite.SQLiteTableExtraConfigValue> = {
  index: lite.index,
  primaryKey: (...columns) => lite.primaryKey({ columns }),
  notEqual: sql.raw("!="),
};

const pgKit: TwinExtraKit<pg.ExtraConfigColumn, pg.PgTableExtraConfigValue> = {
  index: pg.index,
  primaryKey: (...columns) => pg.primaryKey({ columns }),
  notEqual: sql.raw("<>"),
};

type TwinColumns = Record<string, TwinColumn<SqliteBuilder, PgBuilder>>;

/**
 * A table both databases hold, its columns written once ({@link TwinColumn}): `sqlite` and
 * `pg` are drizzle tables with drizzle's own types, which the migrations of each are
 * generated from.
 */
export function twinTable<N extends string, C extends TwinColumns>(
  name: N,
  columns: C,
  extra?: TwinExtra<keyof C>,
) {
  return {
    sqlite: lite.sqliteTable(
      name,
      pick(columns, "sqlite"),
      extra && ((t) => extra<lite.SQLiteColumn, lite.SQLiteTableExtraConfigValue>(t, sqliteKit)),
    ),
    pg: pg.pgTable(
      name,
      pick(columns, "pg"),
      extra && ((t) => extra<pg.ExtraConfigColumn, pg.PgTableExtraConfigValue>(t, pgKit)),
    ),
  };
}

/**
 * One database's half of each twin: the builders of a table's columns, or every table
 * (`../schema/index.ts`, `../schema-pg/index.ts`).
 */
export function pick<T extends Record<string, Record<D, unknown>>, D extends "sqlite" | "pg">(
  twins: T,
  dialect: D,
) {
  const entries = Object.entries(twins).map(([key, twin]) => [key, twin[dialect]]);
  return Object.fromEntries(entries) as { [K in keyof T]: T[K][D] };
}
