module.exports = {
  title: 'semantic-release', url: 'https://example.com', baseUrl: '/',
  onBrokenLinks: 'ignore', onBrokenMarkdownLinks: 'ignore',
  presets: [['classic', {docs: {routeBasePath: '/', sidebarPath: undefined}, blog: false, theme: {}}]],
  markdown: {format: 'detect'},
};
