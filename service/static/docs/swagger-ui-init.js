// Starts Swagger UI on /docs (service/pages.py). A file of its own, not the inline script of
// flask-smorest's page: the page's Content-Security-Policy runs scripts from this server only.
window.addEventListener("load", () => {
  const container = document.getElementById("swagger-ui-container");
  window.ui = SwaggerUIBundle({ url: container.dataset.specUrl, dom_id: "#swagger-ui-container" });
});
