// The sandbox console page: reads the admin token from the URL fragment (the start banner's link; a fragment
// never reaches a server or its log), keeps it in this tab's session storage and takes it out of the address
// bar, then renders the app.
import { render } from 'preact';
import { App } from './app.js';
import './style.css';

function fromFragment(): { token?: string; account?: string } {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  return { token: params.get('token') ?? undefined, account: params.get('account') ?? undefined };
}

const given = fromFragment();
if (given.token) sessionStorage.setItem('console-token', given.token);
if (given.account) sessionStorage.setItem('console-account', given.account);
if (location.hash) history.replaceState(null, '', location.pathname);

const root = document.getElementById('app');
if (root)
  render(
    <App
      token={sessionStorage.getItem('console-token') ?? ''}
      initialAccount={sessionStorage.getItem('console-account') ?? ''}
    />,
    root,
  );
