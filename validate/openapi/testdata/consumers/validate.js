// Validates each OpenAPI document named on the command line with
// @apidevtools/swagger-parser (structure against the OpenAPI schema, then
// every $ref resolved), printing one line per document; exits 1 if any fails.
// NODE_PATH names the node_modules folder the package is installed in.
"use strict";
const SwaggerParser = require("@apidevtools/swagger-parser");

(async () => {
  for (const file of process.argv.slice(2)) {
    try {
      const api = await SwaggerParser.validate(file);
      console.log(`${file}: valid OpenAPI ${api.openapi}`);
    } catch (err) {
      console.error(`${file}: ${err.message}`);
      process.exitCode = 1;
    }
  }
})();
