begin;
select plan(3);

-- TEST: signature as upstream: (cron_interval text default '15 seconds') returns text
select has_function('pgflow', 'setup_requeue_stalled_tasks_cron', array['text'],
                    'pgflow.setup_requeue_stalled_tasks_cron(text) exists');
select function_returns('pgflow', 'setup_requeue_stalled_tasks_cron', array['text'], 'text',
                        'setup_requeue_stalled_tasks_cron(text) returns text');
select is_definer('pgflow', 'setup_requeue_stalled_tasks_cron', array['text'],
                  'setup_requeue_stalled_tasks_cron(text) is SECURITY DEFINER');

select * from finish();
rollback;
