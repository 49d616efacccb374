export default { title: 'semantic-release', ignoreDeadLinks: true }
