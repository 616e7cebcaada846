// Imported `with { type: 'file' }`: the value is the path of the embedded file, not a module.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/favicon-32x32.png' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/favicon-16x16.png' {
  const path: string;
  export default path;
}
