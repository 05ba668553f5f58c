/** What the operator's screens share: the lists they read and how an action reports back. */
import { useState, type FormEvent, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { client, describeError } from '../../api.js';
import { Notice, SecretOnce } from '../../ui.js';

export const useAccounts = () => useQuery({ queryKey: ['admin', 'accounts'], queryFn: () => client.admin.listAccounts() });
export const useTenants = () => useQuery({ queryKey: ['admin', 'tenants'], queryFn: () => client.admin.listTenants() });
export const useLines = () => useQuery({ queryKey: ['admin', 'lines'], queryFn: () => client.admin.listLines() });

export function useAction() {
  const qc = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<ReactNode>(null);
  // An action that issues a secret says so in the secret's box (one box, no green banner around
  // or beside it). Kept across later actions until Done: it is shown once, and a click must not lose it.
  const [secret, setSecret] = useState<{ value: string; label: ReactNode } | null>(null);
  const run = async (fn: () => Promise<unknown>, done?: ReactNode) => {
    setError(null);
    setNote(null);
    try {
      await fn();
      if (done) setNote(done);
      await qc.invalidateQueries({ queryKey: ['admin'] });
    } catch (err) {
      setError(describeError(err));
    }
  };
  const feedback = (
    <>
      {error && <div className="banner error" role="alert">{error}</div>}
      {note && <Notice kind="success">{note}</Notice>}
      {secret && <SecretOnce secret={secret.value} label={secret.label} onDone={() => setSecret(null)} />}
    </>
  );
  /** A form's submit handler: `fn` gets the form's fields; the form is cleared when it succeeds. */
  const submit = (fn: (fields: FormData) => Promise<unknown>, done?: ReactNode) => (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const fields = new FormData(form);
    void run(async () => {
      await fn(fields);
      form.reset();
    }, done);
  };
  return { run, submit, feedback, setNote, setSecret };
}
