-- The result of a run-control verb (cancel_run, pause_run, resume_run, retry_run, rerun_flow,
-- skip_step, complete_step). pgflow-py extension.

create type pgflow.run_control_result as (
  run_id uuid,
  status text,
  changed boolean,
  detail text
);

comment on type pgflow.run_control_result is
'What a run-control verb did: run_id (the run acted on; for rerun_flow the new run), status
(the run''s status after the call), changed (false: nothing was done because the run was no
longer in the expected_status given), detail (why nothing was done, else NULL).';
