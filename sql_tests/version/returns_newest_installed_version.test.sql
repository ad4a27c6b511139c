begin;
select plan(1);

-- SETUP: pretend two upgrades were applied; 0.10.0 is newer than 0.9.0 (numeric, not text order)
insert into pgflow.installed_versions (version, install_method)
values ('0.9.0', 'sql'), ('0.10.0', 'sql');

-- TEST: versions are compared component by component
select is(pgflow.version(), '0.10.0', 'version() returns the numerically newest version (0.10.0 > 0.9.0)');

select * from finish();
rollback;
