/**
 * The work page's reader sign-in strip (src/components/ReaderSession.astro): asks the archive who
 * is signed in (GET /api/v1/reader/session, same origin, the HttpOnly cookie goes along) and
 * offers sign-out (DELETE with the session's CSRF token). Without JavaScript the sign-in link
 * still works; sign-out then needs the API.
 */
const strip = document.querySelector<HTMLElement>('[data-reader-session]');
const SESSION = '/api/v1/reader/session';

interface ReaderSessionView {
  login: string;
  name: string | null;
  csrfToken: string;
}

async function refresh(box: HTMLElement): Promise<void> {
  const status = box.querySelector<HTMLElement>('[data-reader-status]');
  const signIn = box.querySelector<HTMLElement>('[data-sign-in]');
  const signOut = box.querySelector<HTMLButtonElement>('[data-sign-out]');
  if (!status || !signIn || !signOut) return;
  let view: ReaderSessionView | null = null;
  try {
    const res = await fetch(SESSION, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (res.ok) view = ((await res.json()) as { data: ReaderSessionView }).data;
  } catch {
    view = null;
  }
  if (!view) {
    signIn.hidden = false;
    signOut.hidden = true;
    return;
  }
  status.textContent = `Signed in as ${view.login}${view.name ? ` (${view.name})` : ''} with GitHub: signed-in files on this page download for you.`;
  signIn.hidden = true;
  signOut.hidden = false;
  signOut.onclick = async () => {
    signOut.disabled = true;
    const res = await fetch(SESSION, {
      method: 'DELETE',
      credentials: 'same-origin',
      headers: { 'X-CSRF-Token': view.csrfToken },
    });
    signOut.disabled = false;
    if (res.status === 204) {
      status.textContent = 'Signed out. Files marked “Signed-in users only” download after you sign in with GitHub.';
      signIn.hidden = false;
      signOut.hidden = true;
    } else {
      status.textContent = 'Sign-out failed; reload the page and try again.';
    }
  };
}

if (strip) void refresh(strip);
