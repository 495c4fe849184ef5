// Module federation needs an asynchronous boundary before shared modules (React, ...) are used.
import('./bootstrap');
