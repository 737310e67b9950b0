// The browser edition's one front-end extension, written by hand: JupyterLite loads it as it
// loads any prebuilt extension (a script that registers `window._JUPYTERLAB[name]` with
// webpack's init/get), so it needs no build step (lite/build.py passes this folder to
// `jupyter lite build`).
//
// What it does: when the site is opened on a notebook (`lab/index.html?path=...`, the badge's
// link), it starts that notebook's kernel as JupyterLab starts, as soon as the ServiceWorker
// the kernel reads its files through is in place. JupyterLab would start it only once the
// notebook is open and rendered, seconds later; the kernel's worker (Pyodide restoring its
// snapshot) then runs beside the rest of JupyterLab's start-up, and the notebook, when it
// opens, finds the session by its path and joins it (benchmarks/lite_cold_start.py).
(function () {
  const NAME = "autograd-viz-start-kernel";
  let shared = {}; // webpack's share scope, from init(): the app's own copies of its packages

  // A package the app shares (a singleton: the copy already loaded, else the newest).
  async function sharedModule(name) {
    const versions = Object.entries(shared[name] || {});
    const byVersion = (a, b) => a[0].localeCompare(b[0], undefined, { numeric: true });
    const found = versions.find(([, entry]) => entry.loaded) || versions.sort(byVersion).pop();
    return found ? (await found[1].get())() : null;
  }

  function controlled() {
    const workers = navigator.serviceWorker;
    if (workers.controller) return Promise.resolve();
    return new Promise((resolve) =>
      workers.addEventListener("controllerchange", resolve, { once: true }),
    );
  }

  // The default kernel's name, once its plugin (the Pyodide kernel's) has registered it: that
  // plugin may activate after this one, so ask again every 0.1 s for up to a minute.
  async function defaultKernel(kernelspecs) {
    for (let tries = 0; tries < 600; tries++) {
      await kernelspecs.refreshSpecs();
      const specs = kernelspecs.specs;
      if (specs && specs.default && specs.kernelspecs[specs.default]) return specs.default;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("no kernel was registered");
  }

  async function startKernel(app, serviceWorker) {
    const path = new URLSearchParams(window.location.search).get("path");
    if (!path || !path.endsWith(".ipynb") || !serviceWorker) return;
    // the kernel mounts the notebooks' folder only if the ServiceWorker is registered as it
    // starts, and reads it through the worker once that controls the page
    await serviceWorker.ready;
    await controlled();
    const { sessions, kernelspecs } = app.serviceManager;
    const kernel = await defaultKernel(kernelspecs);
    await sessions.ready;
    if ([...sessions.running()].some((model) => model.path === path)) return;
    const session = await sessions.startNew({
      path,
      name: path.split("/").pop(),
      type: "notebook",
      kernel: { name: kernel },
    });
    console.info(`${NAME}: started the kernel of ${path} as JupyterLab starts`);
    session.dispose(); // this connection only: the session and its kernel run on
  }

  async function plugins() {
    const apputils = await sharedModule("@jupyterlite/apputils");
    return [
      {
        id: `${NAME}:plugin`,
        description: "Starts the kernel of the notebook in the URL as JupyterLab starts.",
        autoStart: true,
        optional: apputils ? [apputils.IServiceWorkerManager] : [],
        activate: (app, serviceWorker) => {
          startKernel(app, serviceWorker).catch((err) =>
            console.warn(`${NAME}: the kernel starts with the notebook instead:`, err),
          );
        },
      },
    ];
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: async (scope) => {
      shared = scope || {};
    },
    get: async (module) => {
      if (module !== "./extension") throw new Error(`${NAME}: no module ${module}`);
      const found = await plugins();
      return () => found;
    },
  };
})();
