-- Schema and install bookkeeping.
-- Installed with CREATE EXTENSION the schema comes from pgflow.control; installed as plain
-- SQL (managed Postgres without custom extensions) the script creates it itself.
do $$
begin
  if not exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow') then
    create schema if not exists pgflow;
  end if;
end
$$;

-- One row per schema version applied to this database, by either install path.
create table pgflow.installed_versions (
  version text primary key,
  installed_at timestamptz not null default now(),
  install_method text not null,
  constraint install_method_is_valid check (install_method in ('extension', 'sql'))
);

insert into pgflow.installed_versions (version, install_method)
select
  '@PGFLOW_VERSION@',
  case when exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow')
    then 'extension' else 'sql' end;
