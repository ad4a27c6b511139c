-- SETUP: _set_actor called in a transaction of its own (autocommit), which has ended
select pgflow._set_actor('leaked', 'leaked reason') is not null as set_in_an_earlier_transaction;

begin;
select plan(3);

-- TEST: the settings are transaction-local (set_config is_local): the earlier transaction's
-- values are gone, so later statements are not attributed to it
select is(coalesce(current_setting('pgflow.actor', true), ''), '', 'pgflow.actor is blank in the next transaction');
select is(coalesce(current_setting('pgflow.reason', true), ''), '', 'pgflow.reason is blank in the next transaction');

-- TEST: set inside a savepoint, they roll back with it
select set_config('pgflow.actor', 'outer', true), set_config('pgflow.reason', 'outer reason', true);
savepoint inner_work;
select pgflow._set_actor('inner', 'inner reason');
rollback to savepoint inner_work;
select is(array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['outer', 'outer reason'], 'rolled back with the savepoint');

select * from finish();
rollback;
