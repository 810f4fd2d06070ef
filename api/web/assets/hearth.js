// Hearth's pages read without JavaScript; this only adds conveniences. A button with data-copy copies that text.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(button.dataset.copy ?? '');
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Copy failed';
    }
  });
}

// An element with an id and data-refresh="N" is fetched again from this page's address every N seconds and put in
// place, without reloading the page; the page reads the same without this.
for (const region of document.querySelectorAll('[id][data-refresh]')) {
  const every = Math.max(1, Number(region.dataset.refresh) || 5) * 1000;
  const refresh = async () => {
    try {
      const response = await fetch(location.pathname + location.search, { headers: { Accept: 'text/html' }, credentials: 'same-origin' });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').getElementById(region.id);
      const current = document.getElementById(region.id);
      if (fresh && current && !current.contains(document.activeElement)) current.replaceWith(document.importNode(fresh, true));
    } finally {
      setTimeout(refresh, every);
    }
  };
  setTimeout(refresh, every);
}
